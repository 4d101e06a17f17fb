import Foundation

extension DefaultsStore {
    /// Chooses, once, at launch, the store ``Defaults`` and every `@UserDefault` without `store:` use,
    /// in every module: an app group's suite shared with a widget or an extension, say.
    ///
    /// ```swift
    /// @main
    /// struct MyApp: App {
    ///     init() {
    ///         DefaultsStore.bootstrap(DefaultsStore(suiteName: "group.com.example.app")!)
    ///     }
    /// }
    /// ```
    ///
    /// Call it before the first use of ``Defaults`` or of such a wrapper, as swift-log's
    /// `LoggingSystem.bootstrap` is: that first use fixes the store for the rest of the process. A call
    /// after it, or a second call, is a mistake: in debug builds it stops the program with a message
    /// saying so; in release builds it is ignored (``Defaults`` keeps the store it had, so values never
    /// split between two suites within one run) and a warning is written to standard error, once.
    /// Thread-safe. A store passed with `store:`, or used directly, is never affected.
    public static func bootstrap(_ store: DefaultsStore) {
        let mistake = BootstrappedStore.choose(store)
        guard let mistake else { return }
        #if DEBUG
            assertionFailure("TypedDefaults: \(mistake)")
        #else
            BootstrappedStore.warnOnce("TypedDefaults warning: \(mistake)")
        #endif
    }
}

/// The store ``Defaults`` stands for: chosen by `bootstrap`, fixed at its first use.
enum BootstrappedStore {
    /// The store chosen, whether ``Defaults`` was used, and whether a warning was printed: kept with what
    /// the process keeps for all its stores (`ProcessState`).
    struct State {
        var chosen: DefaultsStore?
        var used = false
        var warned = false
    }

    /// Fixed at the first use, once (Swift runs a `static let`'s initializer exactly once, thread-safely):
    /// later uses cost no lock.
    /// The standard store is made with no lock held: its first use reads files on Linux.
    static let resolved: DefaultsStore = {
        let chosen = ProcessState.withState { process in
            process.bootstrap.used = true
            return process.bootstrap.chosen
        }
        return chosen ?? .standard
    }()

    /// Takes `store` as the app's store, or says why not.
    static func choose(_ store: DefaultsStore) -> String? {
        ProcessState.withState { process in
            // Another call chose first, whether or not Defaults was used since (two calls at once: the
            // loser may come after the winner's first use).
            if process.bootstrap.chosen != nil {
                return
                    "DefaultsStore.bootstrap(_:) was called twice; the store of the call that came first stays."
            }
            if process.bootstrap.used {
                return
                    "DefaultsStore.bootstrap(_:) was called after Defaults or a @UserDefault without store: was first used; call it at launch, before any use. Defaults stays on the store it had."
            }
            process.bootstrap.chosen = store
            return nil
        }
    }

    static func warnOnce(_ message: String) {
        let first = ProcessState.withState { process in
            defer { process.bootstrap.warned = true }
            return !process.bootstrap.warned
        }
        guard first else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
