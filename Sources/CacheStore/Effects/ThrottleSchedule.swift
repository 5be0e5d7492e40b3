/// When each throttled effect of one store may start, by id: the state behind
/// ``ActionEffect/throttle(id:for:clock:latest:)``.
///
/// It keeps, for each id, the instant the last throttled effect started or is due to start. A store
/// and a `TestStore` each own one, so tests never share it. `lock` guards `starts`, held only to read
/// and change it. Memory: one instant per throttle id used; ``forget(_:)`` drops one (on `cancel`).
@usableFromInline
package final class ThrottleSchedule: @unchecked Sendable {
    /// When a throttled effect starts.
    package enum Start<Instant> {
        case now
        case at(Instant)
        case never
    }

    private let lock = Lock()
    private var starts: [AnyHashable: any Sendable] = [:]

    package init() {}

    /// Decides when an effect throttled under `id`, returned at `now`, starts, and records it.
    ///
    /// - At once when nothing started under `id` within `interval` before `now`.
    /// - When one is due to start later: at that instant, replacing it, when `latest`; never otherwise.
    /// - Else `interval` after the last start.
    package func start<Instant: InstantProtocol>(
        _ id: AnyHashable, at now: Instant, interval: Instant.Duration, latest: Bool
    ) -> Start<Instant> {
        lock.withLock {
            guard let last = starts[id] as? Instant, now < last.advanced(by: interval) else {
                starts[id] = now
                return .now
            }
            if now < last { return latest ? .at(last) : .never }
            let next = last.advanced(by: interval)
            starts[id] = next
            return .at(next)
        }
    }

    /// Forgets when the effects under `id` started: the next one starts at once.
    @usableFromInline
    package func forget(_ id: AnyHashable) {
        lock.withLock { _ = starts.removeValue(forKey: id) }
    }
}
