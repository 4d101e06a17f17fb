import Foundation
import Testing
import TypedDefaults

/// A view model as an app writes one: main-actor state kept up to date by an observation whose closure
/// is not `@Sendable` and touches that state directly.
@MainActor
private final class ThemeModel {
    private(set) var seen: [Theme] = []
    private var token: ObservationToken?
    private var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

    init(store: DefaultsStore, initial: Bool = false) {
        token = store.observe(.theme, initial: initial, isolation: MainActor.shared) { [weak self] change in
            self?.record(change.newValue)
        }
    }

    /// Observes through a wrapper property instead of the store.
    init(wrapper: UserDefault<Theme>) {
        token = wrapper.observe(isolation: MainActor.shared) { [weak self] change in
            self?.record(change.newValue)
        }
    }

    func record(_ theme: Theme) {
        // The compiler holds the closure to the main actor; this checks the library ran it there.
        // (Under `swift test` on Linux the main actor runs on a dispatch thread, not the main thread.)
        MainActor.preconditionIsolated("an observation's call ran off the main actor")
        seen.append(theme)
        if let waiter, seen.count >= waiter.count {
            self.waiter = nil
            waiter.continuation.resume()
        }
    }

    /// Returns once `count` changes have been seen.
    func seen(count: Int) async {
        guard seen.count < count else { return }
        await withCheckedContinuation { waiter = (count, $0) }
    }

    func stopObserving() {
        token = nil
    }
}

/// An actor that counts changes of two keys, observed with `isolation: self`.
private actor ChangeCounter {
    private(set) var count = 0
    private var token: ObservationToken?
    private var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

    func start(store: DefaultsStore) {
        token = store.observe(.theme, .launchCount, isolation: self) {
            self.count += 1
            if let waiter = self.waiter, self.count >= waiter.count {
                self.waiter = nil
                waiter.continuation.resume()
            }
        }
    }

    func reached(_ count: Int) async {
        guard self.count < count else { return }
        await withCheckedContinuation { waiter = (count, $0) }
    }
}

/// Writes `themes` one after another on a thread other than the caller's.
private func writeElsewhere(_ themes: [Theme], to store: DefaultsStore) async {
    await Task.detached { for theme in themes { store[.theme] = theme } }.value
}

@Suite("Observing on an actor: a main-actor model keeps its own state")
@MainActor
struct ActorObservationTests {
    @Test func aMainActorModelSeesEveryChangeInOrderOnTheMainActor() async {
        await withStore { store in
            let model = ThemeModel(store: store)
            await writeElsewhere([.dark, .light, .dark, .system], to: store)
            await model.seen(count: 4)
            #expect(model.seen == [.dark, .light, .dark, .system])
        }
    }

    /// In a program whose main actor runs on the main thread (an app; here the probe), an observer on
    /// the main actor runs inside a write made there, as the peers' callbacks do: the next line sees what
    /// it updated. Before, it ran a few turns of the main actor later (after the next line).
    @Test func anObserverOnTheMainActorRunsInsideAWriteMadeThere() throws {
        let output = try ProbeProcess.run(["main-actor-write", "-"])
        #expect(output.lines == ["after first write: [1]", "after second write: [1, 2]"], "\(output.standardError)")
    }

    /// The same in a main-actor task that has waited, as a view model's method in an async program: on
    /// Linux the main actor then runs off the main thread, and the writer's isolation decides. Before,
    /// the check was `Thread.isMainThread`, and the observer ran after the next line (`[]`, then `[1]`).
    @Test func anObserverOnTheMainActorRunsInsideAWriteMadeThereAfterAnAwait() throws {
        let output = try ProbeProcess.run(["main-actor-write-after-await", "-"])
        #expect(
            output.lines.dropFirst() == ["after first write: [1]", "after second write: [1, 2]"],
            "\(output.standardError)")
        #if os(Linux)
            // The case the test is about: the main actor off the main thread.
            #expect(output.lines.first == "main thread: false")
        #endif
    }

    @Test func initialCallsTheClosureBeforeObserveReturns() {
        withStore { store in
            store[.theme] = .dark
            let model = ThemeModel(store: store, initial: true)
            #expect(model.seen == [.dark])
        }
    }

    @Test func aWrapperPropertyObservesOnTheMainActorToo() async {
        await withStore { store in
            let model = ThemeModel(wrapper: UserDefault(.theme, store: store))
            await writeElsewhere([.light], to: store)
            await model.seen(count: 1)
            #expect(model.seen == [.light])
        }
    }

    @Test func aReleasedObservationHearsNothingMore() async {
        await withStore { store in
            let stopped = ThemeModel(store: store)
            let control = ThemeModel(store: store)
            await writeElsewhere([.dark], to: store)
            await stopped.seen(count: 1)
            stopped.stopObserving()
            await writeElsewhere([.light], to: store)
            // The main actor runs queued calls in order, and the stopped model's would be queued first.
            await control.seen(count: 2)
            #expect(control.seen == [.dark, .light])
            #expect(stopped.seen == [.dark])
        }
    }

    @Test func anActorObservesSeveralKeysOfDifferentTypesWithItselfAsIsolation() async {
        await withStore { store in
            let counter = ChangeCounter()
            await counter.start(store: store)
            await Task.detached {
                store[.theme] = .dark
                store[.launchCount] = 1
                store[.launchCount] = 2
            }.value
            await counter.reached(3)
            #expect(await counter.count == 3)
        }
    }
}
