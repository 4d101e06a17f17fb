import Foundation

extension NameBindings {
    /// A bound name: the key object that bound it first, and the name as Swift's Observation sees it.
    ///
    /// A class: a lookup takes a reference, where a struct of existentials was copied field by field
    /// through generic witnesses. Its `var`s change only under the table's lock.
    final class BoundName {
        let firstKeyObject: ObjectIdentifier
        let tracked: any TrackedName
        let first: FirstKey
        /// Set once a key object of the name gave a default other than the registered one: from then on
        /// every read of the name tells a stored value from that default, and every other key object is
        /// compared with the name's record.
        var defaultChanged: Bool
        /// The domain was prepared before the name was bound (`StorageContext.bind`).
        let prepared: DomainPrepared
        /// The name's value as a read of its value type last gave it (a `CachedValue<Value>`), and the
        /// generation it was read at.
        var cachedGeneration: UInt64 = 0
        var cached: AnyObject?

        init(
            firstKeyObject: ObjectIdentifier, tracked: any TrackedName, first: FirstKey, defaultChanged: Bool,
            prepared: DomainPrepared
        ) {
            self.firstKeyObject = firstKeyObject
            self.tracked = tracked
            self.first = first
            self.defaultChanged = defaultChanged
            self.prepared = prepared
        }
    }
}
