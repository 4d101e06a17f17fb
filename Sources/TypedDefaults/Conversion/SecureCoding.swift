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
        guard let data = object as? Data, let value: Self = unarchivedObject(from: data) else { return nil }
        self = value
    }

    /// A keyed archive made with secure coding, as the peers write it; `nil` when archiving fails (the
    /// write is then refused and reported).
    public var userDefaultsObject: Any? {
        try? NSKeyedArchiver.archivedData(withRootObject: self, requiringSecureCoding: true)
    }
}

/// The object archived in `data`, when the archive is well formed and its root is a `Value`.
func unarchivedObject<Value: NSObject & NSSecureCoding>(from data: Data) -> Value? {
    guard let archive = KeyedArchive(data), let root = archive.root,
        archive.isObject(at: root, of: Value.self)
    else { return nil }
    return try? NSKeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data)
}

/// The elements of an array archived whole (SwiftyUserDefaults' form for an array of archived objects),
/// when `Element` is an `NSSecureCoding` class and every element is one.
func unarchivedArray<Element>(_ object: Any) -> [Element]? {
    guard let data = object as? Data, let elementClass = Element.self as? NSObject.Type,
        elementClass is NSSecureCoding.Type, let archive = KeyedArchive(data), let root = archive.root,
        archive.isObject(at: root, of: NSArray.self), let elements = archive.arrayElements(at: root),
        elements.allSatisfy({ archive.isObject(at: $0, of: elementClass) }),
        let array = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, elementClass], from: data)
            as? [Any]
    else { return nil }
    let values = array.compactMap { $0 as? Element }
    return values.count == array.count ? values : nil
}

/// The URL archived in `data` (SwiftyUserDefaults' form for a URL), read from the archive's property
/// list without an unarchiver: an `NSURL` whose `NS.relative` is a string and whose `NS.base` is none
/// or another such URL, a few levels at most. Anything else is nil: corelibs' unarchiver traps on an
/// archive of another class, and recursed forever on a URL that was its own base.
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
