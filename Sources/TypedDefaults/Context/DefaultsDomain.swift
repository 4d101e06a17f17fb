import Foundation

/// Which `UserDefaults` domain a storage is: the standard one, a suite, or one the library cannot name
/// (a `UserDefaults` made by the caller, on a platform that does not tell its suite).
enum DefaultsDomain: Equatable, Sendable {
    case standard
    case suite(String)
    case unknown

    /// The domain's name, as files and errors name it.
    var name: String {
        switch self {
        case .standard: StorageContext.standardDomain
        case .suite(let name): name
        case .unknown: "?"
        }
    }
}
