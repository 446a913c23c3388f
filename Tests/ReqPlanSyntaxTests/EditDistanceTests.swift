import Testing

@testable import ReqPlanSyntax

@Suite("Did-you-mean suggestions")
struct EditDistanceTests {
    @Test("a swap of two neighbouring letters is one edit")
    func transpositionIsOneEdit() {
        #expect(Suggestion.editDistance("nmae", "name") == 1)
        #expect(Suggestion.editDistance("pte", "pet") == 1)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
    }

    @Test("a short name two edits away is no suggestion: `len` is not `set`")
    func shortNamesNeedOneEdit() {
        #expect(Suggestion.closest(to: "len", in: ["set", "match"]) == nil)
        #expect(Suggestion.closest(to: "pet", in: ["sets", "petId"]) == "petId")
        #expect(Suggestion.closest(to: "lenght", in: ["set", "length"]) == "length")
        #expect(Suggestion.closest(to: "nedes", in: ["needs", "name"]) == "needs")
        #expect(Suggestion.closest(to: "pte", in: ["pet", "id"]) == "pet")
    }
}
