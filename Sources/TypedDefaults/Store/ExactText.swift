/// A string compared and hashed by its Unicode scalars, not by Swift's canonical equivalence: `"café"`
/// composed and `"cafe\u{301}"` decomposed are two names, as they are two file names and two keys to
/// Foundation. Where the library keys by text it must keep apart (suite names, the strings a saved
/// file holds), it keys by this.
struct ExactText: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.unicodeScalars.elementsEqual(rhs.text.unicodeScalars)
    }

    func hash(into hasher: inout Hasher) {
        for scalar in text.unicodeScalars { hasher.combine(scalar.value) }
    }
}
