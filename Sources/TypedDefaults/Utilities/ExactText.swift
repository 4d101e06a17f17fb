import Foundation

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
        // Swift's equality first: it tells most unequal names apart at once (by length, or by bytes
        // for ASCII), where walking the bytes of each would cost a dictionary lookup of a big suite's
        // name several times over (measured). Equal bytes are equal text, so only Swift's "equal" is
        // checked by bytes.
        // By index, not `elementsEqual`: over two UTF-8 views it walks them with iterators, about 300
        // instructions for a short name, which every write paid (the saver's record of it is keyed by
        // this).
        guard lhs.text == rhs.text else { return false }
        let (left, right) = (lhs.text.utf8, rhs.text.utf8)
        guard left.count == right.count else { return false }
        var (leftIndex, rightIndex) = (left.startIndex, right.startIndex)
        while leftIndex != left.endIndex {
            if left[leftIndex] != right[rightIndex] { return false }
            left.formIndex(after: &leftIndex)
            right.formIndex(after: &rightIndex)
        }
        return true
    }

    func hash(into hasher: inout Hasher) {
        // Swift's hash of the text: equal bytes hash equal, and two forms that Swift takes for equal
        // share a bucket, which `==` then tells apart.
        hasher.combine(text)
    }
}

/// Whether `text` has no character outside ASCII (every UTF-8 byte below 0x80): such a text has one
/// form only (no composed and decomposed forms) and takes one byte a character.
func isASCII(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? text.utf8.allSatisfy { $0 < 0x80 }
}

/// The forms of a name a write stored (`ChangeLog.store`), for the saver's record of it.
enum NameForms {
    /// An ASCII name: it has one form, and Swift's `==` compares its bytes, so no other text is equal to
    /// it unless their bytes are.
    case ascii
    /// A name outside ASCII, with the other forms of it (composed, decomposed) the write removed.
    case replacing([String])
}

/// `name` without `prefix`, when `name` is `prefix` joined to a rest, by canonical equivalence: the
/// rest such that `joinedName(prefix, rest)` is `name`'s stored form; else nil. Not `hasPrefix`, which
/// compares whole characters: a name whose rest begins with a combining mark (U+0301), a joiner (U+200D)
/// or a variation selector (U+FE0F) merges that mark into the prefix's last character, and `hasPrefix`
/// says no. Nor a comparison of bytes alone: a prefix written decomposed (`"cafe\u{301}."`) is the
/// composed one's, and a prefix whose last letter composes with the rest's first mark (`"e"` and
/// `"\u{301}x"`, stored as `"éx"`) is that name's. Where a prefix decides what a listing holds (a store's
/// prefix, a key family's), it decides by this. ASCII names and prefixes cost a byte comparison.
func suffix(of name: String, after prefix: String) -> String? {
    if name.utf8.starts(with: prefix.utf8), isASCII(prefix) {
        let start = name.utf8.index(name.utf8.startIndex, offsetBy: prefix.utf8.count)
        // A rest that begins with ASCII cannot have joined the prefix's last character.
        if start == name.utf8.endIndex || name.utf8[start] < 0x80 || isASCII(name) {
            return String(name.unicodeScalars[start...])
        }
    }
    if isASCII(name), isASCII(prefix) { return nil }
    // By the decomposed forms, in which a joined character is its letter and its marks again.
    let decomposedName = name.decomposedStringWithCanonicalMapping.unicodeScalars
    let decomposedPrefix = prefix.decomposedStringWithCanonicalMapping.unicodeScalars
    guard decomposedName.starts(with: decomposedPrefix) else { return nil }
    let rest = String(String.UnicodeScalarView(decomposedName.dropFirst(decomposedPrefix.count)))
    return canonicalName(rest)
}

/// The stored name of `name` under `prefix`: the canonical form of the whole joined name, not of each
/// half (`"e"` and `"\u{301}x"` are `"éx"`, the plain key `"éx"`'s name). Both halves are canonical
/// already; only a rest that begins with a character outside ASCII can join the prefix's last one, so
/// any other costs a byte comparison.
@inline(__always)
func joinedName(_ prefix: String, _ name: String) -> String {
    if prefix.isEmpty { return name }
    if name.utf8.first.map({ $0 < 0x80 }) ?? true { return prefix + name }
    return canonicalName(prefix + name)
}

/// The form a name is stored in: its canonical composition (NFC), so that one name has one stored form
/// on every backend. `"café"` composed and `"cafe\u{301}"` decomposed are one name to Swift's `==` (and
/// so to a Swift dictionary, `InMemoryStorage`), two to Apple's Foundation and to a file; a key of either
/// spelling stores under the composed one, and both spellings read what the last write stored. ASCII
/// text has one form and is returned as it is, at the cost of a byte scan.
func canonicalName(_ name: String) -> String {
    isASCII(name) ? name : name.precomposedStringWithCanonicalMapping
}

/// The other forms of `name` (composed and decomposed, where their bytes differ from the name's): one
/// name to Swift's `==`, other names to Foundation and to a file. Foundation on Linux keeps one form of a
/// name in memory, and drops a `set` of one while another read from the file is there, so a change of
/// `name` removes them first (and the save removes them from the file). Empty, at the cost of a byte
/// scan, for an ASCII name.
func otherForms(of name: String) -> [String] {
    guard !isASCII(name) else { return [] }
    var forms: [String] = []
    for form in [name.precomposedStringWithCanonicalMapping, name.decomposedStringWithCanonicalMapping]
    where !form.utf8.elementsEqual(name.utf8) && !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
        forms.append(form)
    }
    return forms
}
