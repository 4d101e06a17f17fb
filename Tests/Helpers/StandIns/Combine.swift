// A stand-in for Combine, for type-checking only: the declarations the library's Combine and SwiftUI
// adapters use (Platform/Apple/Combine.swift, Platform/Apple/SwiftUI.swift), in the shapes of the iOS
// 18.3 SDK's Combine.swiftinterface. Linux has no Combine; `Tests/Helpers/StandIns/check` builds the library
// against this. It is not Combine: the macOS and simulator jobs of the hosted workflow are the real check.

public protocol Cancellable {
    func cancel()
}

public struct CombineIdentifier: Hashable {
    public init() {}
}

public protocol CustomCombineIdentifierConvertible {
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    public var combineIdentifier: CombineIdentifier { CombineIdentifier() }
}

public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    func request(_ demand: Subscribers.Demand)
}

public enum Subscribers {
    public struct Demand: Equatable, Hashable {
        public static var unlimited: Demand { Demand(max: nil) }
        public static var none: Demand { Demand(max: 0) }
        public static func max(_ value: Int) -> Demand { Demand(max: value) }
        public let max: Int?
    }

    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }
}

public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Failure>)
}

public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S>(subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input
}

public final class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    public init() {}
    public func receive<S>(subscriber: S) where S: Subscriber, S.Failure == Never, S.Input == Void {}
    public func send() {}
}

public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never
    var objectWillChange: ObjectWillChangePublisher { get }
}

public struct AnySubscriber<Input, Failure: Error>: Subscriber {
    public let combineIdentifier = CombineIdentifier()
    public init<S>(_ s: S) where Input == S.Input, Failure == S.Failure, S: Subscriber {}
    public func receive(subscription: any Subscription) {}
    public func receive(_ value: Input) -> Subscribers.Demand { .none }
    public func receive(completion: Subscribers.Completion<Failure>) {}
}
