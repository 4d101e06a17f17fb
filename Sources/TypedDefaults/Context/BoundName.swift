import Foundation

extension NameBindings {
    /// A bound name: the key object that bound it first, and the name as Swift's Observation sees it.
    ///
    /// A class: a lookup takes a reference, where a struct of existentials was copied field by field
    /// through generic witnesses. What changes in it is reached only with the table's proof
    /// (`BindingsHeld`), which only code holding the table's lock has.
    final class BoundName {
        let firstKeyObject: ObjectIdentifier
        let tracked: any TrackedName
        let first: FirstKey
        /// The domain was prepared before the name was bound (`StorageContext.bindFirst`).
        let prepared: DomainPrepared
        /// Whether the name is ASCII: it has one form (`ChangeLog.store` looks for no other), found once,
        /// here, not on every write.
        let nameIsASCII: Bool
        /// Set once a key object of the name gave a default other than the registered one: from then on
        /// every read of the name tells a stored value from that default, and every other key object is
        /// compared with the name's record.
        private var defaultChangedNow: Bool
        /// The name's value as a read of its value type last gave it (a `CachedValue<Value>`), and the
        /// generation it was read at.
        private var cachedGeneration: UInt64 = 0
        private var cachedValue: AnyObject?

        init(
            firstKeyObject: ObjectIdentifier, tracked: any TrackedName, first: FirstKey, defaultChanged: Bool,
            prepared: DomainPrepared, nameIsASCII: Bool
        ) {
            self.firstKeyObject = firstKeyObject
            self.tracked = tracked
            self.first = first
            defaultChangedNow = defaultChanged
            self.prepared = prepared
            self.nameIsASCII = nameIsASCII
        }

        func defaultChanged(_ held: borrowing BindingsHeld) -> Bool { defaultChangedNow }

        func markDefaultChanged(_ held: borrowing BindingsHeld) { defaultChangedNow = true }

        /// The value cached at `generation`, if any (nil: nothing may be cached).
        func cached(at generation: UInt64?, _ held: borrowing BindingsHeld) -> AnyObject? {
            generation != nil && generation == cachedGeneration ? cachedValue : nil
        }

        /// Keeps `value` (nil: forgets the cached value) as read at `generation`; returns the value it
        /// replaces, for the caller to free past the table's lock: a kept value may be the app's object,
        /// whose `deinit` may read the store.
        func keep(_ value: AnyObject?, at generation: UInt64, _ held: borrowing BindingsHeld) -> AnyObject? {
            defer { (cachedGeneration, cachedValue) = (generation, value) }
            return cachedValue
        }
    }
}
