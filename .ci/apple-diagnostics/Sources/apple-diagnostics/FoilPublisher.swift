// Foil's `$x` was a publisher; each operator a Foil app chains on it first stops with `$x.publisher`.
// Each line that must fail says what with `// expect:`; the last line is the answer, which compiles.
#if canImport(Combine)
    import Combine
    import Foundation
    import TypedDefaults

    struct FoilPublisherSpellings {
        @UserDefault(UserDefaultTypedKey("appleDiagnosticsFlag", defaultValue: true)) var flag
        func use() -> [AnyCancellable] {
            [
                $flag.sink { print($0) },  // expect: 'sink(receiveValue:)' is unavailable: Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.sink { ... }
                $flag.dropFirst().sink { print($0) },  // expect: 'dropFirst' is unavailable: Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.dropFirst()
                $flag.map { !$0 }.sink { print($0) },  // expect: 'map' is unavailable: Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.map { ... }
                $flag.receive(on: DispatchQueue.main).sink { print($0) },  // expect: 'receive(on:options:)' is unavailable: Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.receive(on: queue)
                $flag.eraseToAnyPublisher().sink { print($0) },  // expect: 'eraseToAnyPublisher()' is unavailable: Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.eraseToAnyPublisher()
                $flag.publisher.dropFirst().sink { print($0) },
            ]
        }
    }
#endif
