/// One random edit of `text`, as typing and deleting make them: up to `removing` Unicode scalars at a random
/// place replaced by one of `pieces`. The property tests of reading and checking plans step by step apply
/// them, then compare against reading the edited plan whole.
public func randomEdit(
    of text: String, pieces: [String], removing: Int = 2, using random: inout SeededGenerator
) -> String {
    var scalars = Array(text.unicodeScalars)
    let at = Int.random(in: 0...scalars.count, using: &random)
    let end = min(scalars.count, at + Int.random(in: 0...removing, using: &random))
    let piece = pieces[Int.random(in: 0..<pieces.count, using: &random)]
    scalars.replaceSubrange(at..<end, with: piece.unicodeScalars)
    var edited = String.UnicodeScalarView()
    edited.append(contentsOf: scalars)
    return String(edited)
}
