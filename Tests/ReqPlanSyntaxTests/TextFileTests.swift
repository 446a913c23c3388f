import Foundation
import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// `TextFile.read`, which every plan, inputs file and sub-plan goes through: UTF-8 checked, a byte order
/// mark dropped, a file past the limit refused without being read whole.
@Suite struct TextFileTests {
    private func read(_ bytes: [UInt8], limit: Int = 1_000) throws -> Result<String, TextFile.Failure> {
        let url = TestFolders.unique("text-file")
        try Data(bytes).write(to: url)
        return TextFile.read(atPath: url.path, limit: limit, what: "the plan", shownAs: "plan.yaml")
    }

    @Test func textIsReadAsWritten() throws {
        let text = "reqplan: 1\nname: \"caf\u{E9} \u{1F600}\"\r\n"
        #expect(try read(Array(text.utf8)).get() == text)
    }

    @Test func aByteOrderMarkIsDropped() throws {
        #expect(try read([0xEF, 0xBB, 0xBF] + Array("reqplan: 1\n".utf8)).get() == "reqplan: 1\n")
    }

    @Test(arguments: [
        [0xFF] as [UInt8],  // never valid
        [0x61, 0xC3],  // a sequence cut short at the end
        [0xC0, 0xAF],  // an overlong encoding of `/`
        [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
    ])
    func bytesThatAreNotUTF8AreRefusedByName(_ bad: [UInt8]) throws {
        guard case .failure(let failure) = try read(Array("url: \"http://x/".utf8) + bad + Array("\"\n".utf8)) else {
            Issue.record("\(bad) was read as text")
            return
        }
        #expect(failure.text == "cannot read `plan.yaml`: the file is not UTF-8 text")
        #expect(!failure.isTooLarge)
    }

    @Test func aFilePastTheLimitIsRefusedAsTooLarge() throws {
        guard case .failure(let failure) = try read(Array(repeating: UInt8(ascii: "a"), count: 101), limit: 100)
        else {
            Issue.record("a file of 101 bytes was read under a limit of 100")
            return
        }
        #expect(failure.isTooLarge)
        #expect(failure.text == "the plan is larger than the limit of 100 bytes")
        #expect(try read(Array(repeating: UInt8(ascii: "a"), count: 100), limit: 100).get().utf8.count == 100)
    }
}
