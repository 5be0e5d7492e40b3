/// A ``TestClock``'s time and the tasks sleeping on it, changed only under the clock's lock.
struct TestClockState {
    /// A task sleeping on the clock until `deadline`.
    struct Sleeper {
        let id: Int
        let deadline: TestClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// How many times the clock yields after each wake, for the woken task to reach its next suspension.
    static let yieldsPerWake = 50

    var now: TestClock.Instant
    /// In the order the tasks fell asleep.
    var sleepers: [Sleeper] = [] {
        didSet { if sleepers.count > oldValue.count { sleepsBegun += 1 } }
    }
    /// How many times a task fell asleep on the clock so far.
    private(set) var sleepsBegun = 0
    /// The advance waiting for a woken sleeper to run again, by sleeper id.
    private var wakeWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastSleeperID = 0

    init(now: TestClock.Instant) {
        self.now = now
    }

    mutating func nextSleeperID() -> Int {
        lastSleeperID += 1
        return lastSleeperID
    }

    /// The earliest deadline of any sleeper.
    var earliestDeadline: TestClock.Instant? {
        sleepers.map(\.deadline).min()
    }

    /// Removes the sleeper due first by `target` (the first to fall asleep among equal deadlines) and moves
    /// the clock to its deadline.
    mutating func takeEarliestSleeper(dueBy target: TestClock.Instant) -> Sleeper? {
        guard let deadline = earliestDeadline, deadline <= target,
            let index = sleepers.firstIndex(where: { $0.deadline == deadline })
        else { return nil }
        now = max(now, deadline)
        return sleepers.remove(at: index)
    }

    /// Removes the sleeper `id` if it still sleeps: its task was cancelled.
    mutating func removeSleeper(_ id: Int) -> Sleeper? {
        sleepers.firstIndex { $0.id == id }.map { sleepers.remove(at: $0) }
    }

    /// Keeps `waiter` to resume when the sleeper `id`, woken now, runs again.
    mutating func awaitWake(of id: Int, _ waiter: CheckedContinuation<Void, Never>) {
        wakeWaiters[id] = waiter
    }

    /// The sleeper `id` runs again: the advance waiting for that, if any.
    mutating func acknowledgeWake(of id: Int) -> CheckedContinuation<Void, Never>? {
        wakeWaiters.removeValue(forKey: id)
    }
}
