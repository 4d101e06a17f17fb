// Ranges store as the two-element array `[lowerBound, upperBound]`, the form sindresorhus/Defaults
// uses too. Bounds out of order read as the key's default: `Range` would trap on them.

/// The bounds in `object`, a two-element array of `Bound`s in order.
private func storedBounds<Bound: UserDefaultConvertible & Comparable>(_ object: Any) -> (Bound, Bound)? {
    guard let bounds: [Bound] = convertedElements(object), bounds.count == 2, bounds[0] <= bounds[1] else {
        return nil
    }
    return (bounds[0], bounds[1])
}

extension Range: UserDefaultConvertible where Bound: UserDefaultConvertible {
    /// Reads `[lowerBound, upperBound]`, bounds in order.
    public init?(userDefaultsObject object: Any) {
        guard let (lower, upper): (Bound, Bound) = storedBounds(object) else { return nil }
        self = lower..<upper
    }
    /// `[lowerBound, upperBound]`.
    public var userDefaultsObject: Any? { [lowerBound, upperBound].userDefaultsObject }
}

extension ClosedRange: UserDefaultConvertible where Bound: UserDefaultConvertible {
    /// Reads `[lowerBound, upperBound]`, bounds in order.
    public init?(userDefaultsObject object: Any) {
        guard let (lower, upper): (Bound, Bound) = storedBounds(object) else { return nil }
        self = lower...upper
    }
    /// `[lowerBound, upperBound]`.
    public var userDefaultsObject: Any? { [lowerBound, upperBound].userDefaultsObject }
}
