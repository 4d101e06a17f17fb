#if os(Linux)
    import Foundation

    // Every reliance of the library on how swift-corelibs-foundation works inside, in one place. Checked
    // against swift-corelibs-foundation 6.3.1 (the Swift 6.3.1 toolchain); each has a test that fails
    // if a later version changes it (named below).
    enum CorelibsInternals {
        /// The domain of a `UserDefaults` made by the caller, read from corelibs' stored property `suite`
        /// (`nil` there: the standard domain); `.unknown` when that property is not there any more.
        /// Tested by `aStoreMadeFromAUserDefaultsSharesTheSuitesObserversAndLock`.
        static func domain(of defaults: UserDefaults) -> DefaultsDomain {
            for child in Mirror(reflecting: defaults).children where child.label == "suite" {
                if let suite = child.value as? String? {
                    return suite.map(DefaultsDomain.suite) ?? .standard
                }
            }
            return .unknown
        }

        /// The name under which `persistentDomain(forName:)` lists the standard domain's values as this
        /// process holds them, saved or not: corelibs' `kCFPreferencesCurrentApplication`. Under the
        /// process name it lists only what the file held. A suite's values are listed under its name.
        /// Tested by `hasKeySnapshotAndRemoveAllAgreeWithReadsAfterPlainAPIChanges`.
        static let standardDomainListing = "kCFPreferencesCurrentApplication"

        // Not an internal, but a behaviour the saver works around (see `otherForms(of:)`): corelibs
        // keeps one form of a name (composed or decomposed) in memory once one is set, and drops a `set`
        // of one form while another read from the file is there. Tested by
        // `aNameReadsInThisProcessWhatTheNextLaunchReads`.

        // Not relied on, but what a write costs: corelibs' `set` searches a list of every name the process
        // has set since its last successful `synchronize()` (CFXMLPreferencesDomain's dirty keys, an
        // array), which the library never calls, as it rewrites the file in place. So a write costs more
        // the more names this process has set, not the bigger the suite. Measured by the gate's
        // "write Int, 1,000 keys" row and Performance.md's scaling table.

        /// Makes Foundation read the domain's file now: corelibs reads it at the first read of any name,
        /// and reads racing with that first one see an empty domain (four threads reading a saved suite
        /// at once can give some of them the default). Reading a name nobody uses does it.
        /// Tested by `threadsReadingASavedSuiteAtOnceAllSeeItsValues`.
        static func loadDomain(of defaults: UserDefaults) {
            _ = defaults.object(forKey: "TypedDefaults.load")
        }
    }
#endif
