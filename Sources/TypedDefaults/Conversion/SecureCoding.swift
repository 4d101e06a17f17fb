import Foundation

// `NSSecureCoding` objects (a colour, a font, a class of your own) stored as keyed-archive `Data`, the
// form sindresorhus/Defaults and SwiftyUserDefaults write: one declared line makes such a class
// storable, alone, optional, in arrays and in dictionaries.
//
// On Linux, swift-corelibs-foundation's unarchiver stops the process (instead of throwing) when an
// archive's object is of a class the caller did not allow. So an archive is read by the library's own
// property-list reader first, and handed to `NSKeyedUnarchiver` only when it is well formed (every
// reference within it) and its root object (and, for an array, each element) is of the key's class:
// a corrupt or foreign archive reads as the key's default.

extension UserDefaultConvertible where Self: NSObject & NSSecureCoding {
    /// Reads a keyed archive of this class (`NSKeyedArchiver`, secure or not).
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = unarchivedObject(fromStored: object) else { return nil }
        self = value
    }

    /// A keyed archive made with secure coding, as the peers write it; `nil` when archiving fails (the
    /// write is then refused and reported), and for a class the archiver cannot name (see
    /// `isArchivable`).
    public var userDefaultsObject: Any? { archivedObject(self) }
}

/// A class that is both `Codable` and `NSSecureCoding` is stored as JSON text, as sindresorhus/Defaults
/// stores it; declare ``UserDefaultKeyedArchive`` too to store it as a keyed archive instead. (Without
/// this the two conformances would give it two storage forms, and the compiler no way to choose.)
extension UserDefaultConvertible where Self: NSObject & NSSecureCoding & Codable {
    /// Decodes JSON stored as text or data.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = decodedJSON(object) else { return nil }
        self = value
    }

    /// The value encoded as JSON text.
    public var userDefaultsObject: Any? { encodedJSON(self) }
}

/// Declared by a class that is both `Codable` and `NSSecureCoding`, to store it as a keyed archive (as
/// SwiftyUserDefaults' keyed-archiver bridge and Defaults' `NSSecureCoding` support write it) rather than
/// as JSON text:
///
/// ```swift
/// final class Bookmark: NSObject, NSSecureCoding, Codable, UserDefaultKeyedArchive { … }
/// ```
public protocol UserDefaultKeyedArchive: UserDefaultConvertible, NSObject, NSSecureCoding {}

extension UserDefaultConvertible where Self: NSObject & NSSecureCoding & Codable & UserDefaultKeyedArchive {
    /// Reads a keyed archive of this class (`NSKeyedArchiver`, secure or not).
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = unarchivedObject(fromStored: object) else { return nil }
        self = value
    }

    /// A keyed archive made with secure coding.
    public var userDefaultsObject: Any? { archivedObject(self) }
}

/// The object archived in a stored `object`, for a class the archiver can name.
private func unarchivedObject<Value: NSObject & NSSecureCoding>(fromStored object: Any) -> Value? {
    guard isArchivable(Value.self), let data = object as? Data else { return nil }
    return unarchivedObject(from: data)
}

/// `value` as a keyed archive made with secure coding, for a class the archiver can name.
private func archivedObject<Value: NSObject & NSSecureCoding>(_ value: Value) -> Data? {
    guard isArchivable(Value.self) else { return nil }
    return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
}

/// Whether the keyed archiver can name `objectClass`. On Linux it names a class by its Swift name and
/// stops the process for a `private` class or one nested in another type ("is not a top-level class"),
/// so such a class is refused there: its writes are reported, its reads give the default. Apple's
/// archiver names every class.
func isArchivable(_ objectClass: AnyClass) -> Bool {
    #if os(Linux)
        let name = String(reflecting: objectClass)
        return !name.contains("(") && name.split(separator: ".").count == 2
    #else
        return true
    #endif
}

/// The object archived in `data`, when the archive is well formed and its root is a `Value`.
func unarchivedObject<Value: NSObject & NSSecureCoding>(from data: Data) -> Value? {
    guard let archive = KeyedArchive(data), let root = archive.root,
        archive.isObject(at: root, of: Value.self), archive.isSafeGraph(from: root, allowing: [Value.self])
    else { return nil }
    return try? NSKeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data)
}

/// The elements of an array archived whole (SwiftyUserDefaults' form for an array of archived objects),
/// when `Element` is an `NSSecureCoding` class and every element is one.
func unarchivedArray<Element>(_ object: Any) -> [Element]? {
    guard let data = object as? Data, let elementClass = Element.self as? NSObject.Type,
        elementClass is NSSecureCoding.Type, isArchivable(elementClass), let archive = KeyedArchive(data),
        let root = archive.root,
        archive.isObject(at: root, of: NSArray.self), let elements = archive.arrayElements(at: root),
        elements.allSatisfy({ archive.isObject(at: $0, of: elementClass) }),
        archive.isSafeGraph(from: root, allowing: [elementClass]),
        let array = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, elementClass], from: data)
            as? [Any]
    else { return nil }
    let values = array.compactMap { $0 as? Element }
    return values.count == array.count ? values : nil
}

/// The URL archived in `data` (SwiftyUserDefaults' form for a URL), read from the archive's property
/// list without an unarchiver: an `NSURL` whose `NS.relative` is a string and whose `NS.base` is none
/// or another such URL, a few levels at most. Anything else is nil: corelibs' unarchiver traps on an
/// archive of another class, and recurses forever on a URL that is its own base.
func unarchivedURL(from data: Data) -> URL? {
    guard let archive = KeyedArchive(data), let root = archive.root else { return nil }
    return archive.url(at: root, depth: 0)
}

/// A keyed archive as its property list holds it, checked: every reference is within `$objects`, and
/// every object's class entry names a class.
private struct KeyedArchive {
    let objects: [Any]
    let root: Int?

    init?(_ data: Data) {
        guard let top = BinaryPropertyList.decodeArchive([UInt8](data)) as? [String: Any],
            top["$archiver"] as? String == "NSKeyedArchiver", let objects = top["$objects"] as? [Any],
            let tops = top["$top"] as? [String: Any]
        else { return nil }
        self.objects = objects
        root = (tops["root"] as? ArchiveUID)?.index
        guard Self.referencesAreWithin(objects.count, top) else { return nil }
        for object in objects {
            if let entries = object as? [String: Any], let reference = entries["$class"] {
                guard let uid = reference as? ArchiveUID, let classEntry = objects[uid.index] as? [String: Any],
                    classEntry["$classname"] is String
                else { return nil }
            }
        }
    }

    private static func referencesAreWithin(_ count: Int, _ object: Any) -> Bool {
        switch object {
        case let uid as ArchiveUID: return uid.index < count
        case let array as [Any]: return array.allSatisfy { referencesAreWithin(count, $0) }
        case let dictionary as [String: Any]: return dictionary.values.allSatisfy { referencesAreWithin(count, $0) }
        default: return true
        }
    }

    /// Whether the object at `index` is an instance of `expected` or of a subclass of it.
    func isObject(at index: Int, of expected: AnyClass) -> Bool {
        guard index < objects.count, let entries = objects[index] as? [String: Any],
            let uid = entries["$class"] as? ArchiveUID, let classEntry = objects[uid.index] as? [String: Any],
            let name = classEntry["$classname"] as? String,
            let archivedClass = NSClassFromString(name) as? NSObject.Type
        else { return false }
        return archivedClass.isSubclass(of: expected)
    }

    /// Whether the unarchiver can be handed the objects reachable from `root`: on Linux, every one of a
    /// class it reads without trapping (a subclass of `allowed` that supports secure coding, or one of
    /// Foundation's value classes with fields of the kinds its decoder reads), no object reachable from
    /// itself, and at most 100 levels deep. swift-corelibs-foundation's unarchiver traps where Apple's
    /// throws (a forced cast of a field of the wrong kind, a class that does not support secure coding,
    /// endless recursion on a cycle), so it gets only graphs proven safe. On Apple platforms its own
    /// checks decide (`requiringSecureCoding`), and objects of other classes an archive may hold
    /// (a colour's colour space) stay readable.
    func isSafeGraph(from root: Int, allowing allowed: [AnyClass]) -> Bool {
        #if os(Linux)
            var finished = Set<Int>()
            var onPath: Set<Int> = [root]
            guard let children = checkedReferences(of: root, allowing: allowed) else { return false }
            var path: [(index: Int, children: [Int])] = [(root, children)]
            while !path.isEmpty {
                guard let child = path[path.count - 1].children.popLast() else {
                    let done = path.removeLast()
                    onPath.remove(done.index)
                    finished.insert(done.index)
                    continue
                }
                if child == 0 || finished.contains(child) { continue }  // 0: the archive's null
                guard !onPath.contains(child), path.count < 100,
                    let grandchildren = checkedReferences(of: child, allowing: allowed)
                else { return false }
                onPath.insert(child)
                path.append((child, grandchildren))
            }
            return true
        #else
            return true
        #endif
    }

    /// The objects the object at `index` refers to, when it is one the unarchiver reads safely (see
    /// `isSafeGraph`); nil otherwise.
    private func checkedReferences(of index: Int, allowing allowed: [AnyClass]) -> [Int]? {
        guard index < objects.count else { return nil }
        guard let entries = objects[index] as? [String: Any] else {
            // A string, number, date or data: read as it is. A bare array or UID is no object.
            return objects[index] is [Any] || objects[index] is ArchiveUID ? nil : []
        }
        guard let classReference = entries["$class"] as? ArchiveUID,
            let classEntry = objects[classReference.index] as? [String: Any],
            let name = classEntry["$classname"] as? String
        else { return nil }
        var references: [Int] = []
        for (field, value) in entries where field != "$class" {
            switch value {
            case let uid as ArchiveUID: references.append(uid.index)
            case let array as [Any]:
                for element in array {
                    guard let uid = element as? ArchiveUID else { return nil }
                    references.append(uid.index)
                }
            case is [String: Any]: return nil
            default: continue
            }
        }
        guard Self.fieldsAreReadable(entries, ofClassNamed: name, allowing: allowed) else { return nil }
        // An object of the app's own class may hold plain values only (strings, numbers, data: what
        // `NSKeyedArchiver` writes in place): its decoder asks for each field's class, which the archive
        // does not say, and corelibs' unarchiver stops the process when a field holds an object of another
        // (a swatch's name that is data, or another swatch).
        if !Self.foundationClassNames.contains(name),
            references.contains(where: { $0 != 0 && ($0 >= objects.count || objects[$0] is [String: Any]) })
        {
            return nil
        }
        return references
    }

    /// Foundation's value classes `fieldsAreReadable` knows the fields of.
    private static let foundationClassNames: Set<String> = [
        "NSString", "NSMutableString", "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSDictionary",
        "NSMutableDictionary", "NSData", "NSMutableData", "NSDate", "NSUUID", "NSURL",
    ]

    /// Whether an object of the class named `name` with these fields is one the unarchiver reads
    /// without trapping: Foundation's value classes by the fields their decoders read, any other class
    /// only a subclass of `allowed` that supports secure coding.
    private static func fieldsAreReadable(
        _ fields: [String: Any], ofClassNamed name: String, allowing allowed: [AnyClass]
    )
        -> Bool
    {
        func isReference(_ field: String) -> Bool { fields[field] is ArchiveUID }
        func isReferences(_ field: String) -> Bool {
            (fields[field] as? [Any])?.allSatisfy { $0 is ArchiveUID } == true
        }
        switch name {
        case "NSString", "NSMutableString": return fields["NS.string"] is String || fields["NS.bytes"] is Data
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet": return isReferences("NS.objects")
        case "NSDictionary", "NSMutableDictionary":
            guard let keys = fields["NS.keys"] as? [Any], let values = fields["NS.objects"] as? [Any] else {
                return false
            }
            return keys.count == values.count && isReferences("NS.keys") && isReferences("NS.objects")
        case "NSData", "NSMutableData": return fields["NS.data"] is Data
        case "NSDate": return fields["NS.time"] is Double
        case "NSUUID": return (fields["NS.uuidbytes"] as? Data)?.count == 16
        case "NSURL": return isReference("NS.relative") && (fields["NS.base"] == nil || isReference("NS.base"))
        default:
            guard let objectClass = NSClassFromString(name) as? NSObject.Type,
                allowed.contains(where: { objectClass.isSubclass(of: $0) }),
                (objectClass as? NSSecureCoding.Type)?.supportsSecureCoding == true
            else { return false }
            return true
        }
    }

    /// The URL at `index`: see `unarchivedURL(from:)`.
    func url(at index: Int, depth: Int) -> URL? {
        guard depth < 4, isObject(at: index, of: NSURL.self), let entries = objects[index] as? [String: Any],
            let relative = (entries["NS.relative"] as? ArchiveUID).flatMap({ objects[$0.index] as? String })
        else { return nil }
        guard let base = entries["NS.base"] as? ArchiveUID, base.index != 0 else {
            return URL(string: relative)  // $objects[0] is the archive's null
        }
        guard let baseURL = url(at: base.index, depth: depth + 1) else { return nil }
        return URL(string: relative, relativeTo: baseURL)
    }

    /// The element references of the array at `index` (`NS.objects`).
    func arrayElements(at index: Int) -> [Int]? {
        guard let entries = objects[index] as? [String: Any], let elements = entries["NS.objects"] as? [Any] else {
            return nil
        }
        let references = elements.compactMap { ($0 as? ArchiveUID)?.index }
        return references.count == elements.count ? references : nil
    }
}
