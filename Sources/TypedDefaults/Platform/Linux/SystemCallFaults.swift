// Debug builds only (the tests'): a release build carries no fault injection, which costs a lock per
// system call and a map of open descriptors (`.ci/check-runtime-symbols` checks its symbols are absent).
#if os(Linux) && DEBUG
    import Glibc

    /// What an injected fault does in place of the call.
    package enum SystemCallFault: Sendable, Equatable {
        /// The call fails with this error number (`EINTR`: the call is made again, as after a signal).
        case error(Int32)
        /// A read or write moves one byte at most.
        case shortTransfer
    }

    /// The tests' hook into `System`: makes calls on the paths of one suite fail, in-process, so that
    /// every failure path of the saver is a unit test. Faults are kept by a marker (the suite's name) that
    /// a path must contain, so tests running in parallel on other suites are not touched; a call on a
    /// descriptor is matched by the path it was opened with. Costs a lock per system call.
    package enum SystemCallFaults {
        private struct Fault {
            let call: SystemCall
            let marker: String
            let fault: SystemCallFault
            var remaining: Int
        }

        private struct State {
            var faults: [Fault] = []
            var pathsByDescriptor: [Int32: String] = [:]
        }

        private static let state = Locked(State())

        /// Makes the next `times` calls of `call` on a path containing `marker` do `fault` instead.
        package static func inject(
            _ fault: SystemCallFault, into call: SystemCall, onPathsContaining marker: String, times: Int = .max
        ) {
            state.withLockedValue {
                $0.faults.append(Fault(call: call, marker: marker, fault: fault, remaining: times))
            }
        }

        /// Removes every fault on paths containing `marker`.
        package static func removeAll(onPathsContaining marker: String) {
            state.withLockedValue { $0.faults.removeAll { $0.marker == marker } }
        }

        static func opened(_ descriptor: Int32, _ path: String) {
            state.withLockedValue { $0.pathsByDescriptor[descriptor] = path }
        }

        static func closed(_ descriptor: Int32) {
            state.withLockedValue { $0.pathsByDescriptor[descriptor] = nil }
        }

        /// The fault to apply to this call instead of making it, if one is set for it.
        static func take(_ call: SystemCall, path: String?, descriptor: Int32?) -> SystemCallFault? {
            state.withLockedValue { state in
                guard !state.faults.isEmpty,
                    let path = path ?? descriptor.flatMap({ state.pathsByDescriptor[$0] }),
                    let index = state.faults.firstIndex(where: {
                        $0.call == call && $0.remaining > 0 && path.contains($0.marker)
                    })
                else { return nil }
                state.faults[index].remaining -= 1
                return state.faults[index].fault
            }
        }
    }
#endif
