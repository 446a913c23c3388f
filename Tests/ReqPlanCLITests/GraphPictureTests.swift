import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan graph --format svg`: the picture reqplan lays out itself, read back as XML.
@Suite struct GraphPictureTests {
    static func picture(of plan: String) throws -> (SVGGraphPicture, String) {
        let result = try CommandRunner.run(["graph", "--format", "svg", plan])
        #expect(result.status == 0, "\(result.stderr)")
        return (SVGGraphPicture.read(result.stdout), result.stdout)
    }

    @Test(
        "every step is a box of its own, inside the frame of each collection that holds it, an arrow for each wait",
        arguments: ["plans/app-launch.yaml", "plans/signed-in-home.yaml", "plans/batch-upload.yaml"])
    func boxesFramesAndArrows(_ plan: String) throws {
        let (picture, svg) = try Self.picture(of: plan)
        #expect(!picture.steps.isEmpty, "\(svg)")
        let boxes = picture.steps.sorted { $0.key < $1.key }
        for (index, (id, box)) in boxes.enumerated() {
            for (other, otherBox) in boxes[(index + 1)...] {
                #expect(!box.overlaps(otherBox), "\(id) and \(other) overlap in \(plan)")
            }
        }
        for (id, parent) in picture.parents {
            let inner = picture.steps[id] ?? picture.frames[id]
            let outer = picture.frames[parent]
            #expect(inner != nil && outer != nil, "\(id) or its parent \(parent) is not drawn")
            if let inner, let outer { #expect(outer.holds(inner), "\(parent) does not hold \(id) in \(plan)") }
        }
        // A frame holds no step but its own members.
        for (frame, box) in picture.frames {
            for (id, step) in picture.steps where box.overlaps(step) {
                var ancestor = picture.parents[id]
                while let current = ancestor, current != frame { ancestor = picture.parents[current] }
                #expect(ancestor == frame, "\(frame) covers \(id), which it does not hold, in \(plan)")
            }
        }
        for edge in picture.edges {
            #expect(
                (picture.steps[edge.from] ?? picture.frames[edge.from]) != nil
                    && (picture.steps[edge.to] ?? picture.frames[edge.to]) != nil, "\(edge)")
        }
    }

    @Test("app-launch's waits are drawn: the data login gives config, and home after the bootstrap group")
    func appLaunchArrows() throws {
        let (picture, _) = try Self.picture(of: "plans/app-launch.yaml")
        let edges = Set(picture.edges.map { "\($0.from)→\($0.to)" })
        #expect(edges.isSuperset(of: ["login→config", "bootstrap→home", "home→logout", "cart→order"]), "\(edges)")
        // Steps that can start together share a column; a step after them is to their right.
        let login = try #require(picture.steps["login"])
        let preferences = try #require(picture.steps["preferences"])
        let home = try #require(picture.steps["home"])
        #expect(login.x == preferences.x && home.x > login.right)
    }
}
