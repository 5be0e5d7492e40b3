import CacheStore
import Foundation
import Testing

/// Effects of a feature lifted into an app keep their feature's ids to themselves: a feature lifted
/// twice runs, replaces and cancels each lift's effects apart.
@Suite(.timeLimit(.minutes(2))) struct LiftedEffectTests {
    /// The counter feature: `.start` runs a timer that sends `.tick` for each tick its dependency
    /// gives, `.stop` cancels it.
    enum CounterKey: Hashable, Sendable { case ticks }
    enum CounterAction: Sendable, Equatable { case start, stop, tick }
    enum CounterID: Hashable, Sendable { case timer }

    /// The ticks the test feeds one counter's timer.
    final class Ticks: Sendable {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        }

        func tick() {
            continuation.yield()
        }
    }

    static let counter = StoreActionHandler<CounterKey, CounterAction, Ticks> { state, action, ticks in
        switch action {
        case .start:
            return .run(id: CounterID.timer) { send in
                for await _ in ticks.stream {
                    await send(.tick)
                }
            }
        case .stop:
            return .cancel(id: CounterID.timer)
        case .tick:
            state.update(.ticks, as: Int.self) { $0 = ($0 ?? 0) + 1 }
            return .none
        }
    }

    enum AppKey: Hashable, Sendable { case leftTicks, rightTicks }
    enum AppAction: Sendable, Equatable {
        case left(CounterAction)
        case right(CounterAction)
    }
    struct AppDependency: Sendable {
        let left = Ticks()
        let right = Ticks()
    }

    /// The app: the counter lifted twice, on keys of its own each.
    static let app = StoreActionHandler<AppKey, AppAction, AppDependency>(combining: [
        .scope(
            keyTransformation: (
                from: { $0 == .leftTicks ? .ticks : nil }, to: { $0 == .ticks ? .leftTicks : nil }
            ),
            actionHandler: counter,
            extractAction: { if case .left(let action) = $0 { action } else { nil } },
            embedAction: AppAction.left,
            dependencyTransformation: { $0.left }
        ),
        .scope(
            keyTransformation: (
                from: { $0 == .rightTicks ? .ticks : nil }, to: { $0 == .ticks ? .rightTicks : nil }
            ),
            actionHandler: counter,
            extractAction: { if case .right(let action) = $0 { action } else { nil } },
            embedAction: AppAction.right,
            dependencyTransformation: { $0.right }
        ),
    ])

    /// Starting the right counter's timer leaves the left one's running; stopping the left one stops only it.
    @Test func aFeatureLiftedTwiceKeepsItsEffectsApart() async throws {
        let dependency = AppDependency()
        let store = Store(initialValues: [:], actionHandler: Self.app, dependency: dependency)
        func ticks(_ key: AppKey) -> Int { store.get(key, as: Int.self) ?? 0 }

        store.handle(action: .left(.start))
        dependency.left.tick()
        #expect(await eventually(timeout: .seconds(60)) { ticks(.leftTicks) == 1 }, "the left timer ticks")

        store.handle(action: .right(.start))
        #expect(store.runningEffectIDs.count == 2, "running: \(store.runningEffectIDs)")
        dependency.right.tick()
        dependency.left.tick()
        #expect(await eventually(timeout: .seconds(60)) { ticks(.rightTicks) == 1 }, "the right timer ticks")
        #expect(
            await eventually(timeout: .seconds(60)) { ticks(.leftTicks) == 2 },
            "the left timer stopped ticking when the right one started: \(ticks(.leftTicks)) ticks")

        store.handle(action: .left(.stop))
        #expect(store.runningEffectIDs.count == 1, "running: \(store.runningEffectIDs)")
        dependency.right.tick()
        dependency.left.tick()
        #expect(
            await eventually(timeout: .seconds(60)) { ticks(.rightTicks) == 2 },
            "the right timer stopped ticking when the left one was stopped: \(ticks(.rightTicks)) ticks")
        try await Task.sleep(for: .milliseconds(200))
        #expect(ticks(.leftTicks) == 2, "the left timer ticks after its stop")
    }
}
