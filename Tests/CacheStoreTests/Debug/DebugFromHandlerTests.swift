import CacheStore
import Foundation
import Testing

enum DebugAttackAction: Sendable {
    case sendToOther
    case configureOtherDebug
    case noop
}

/// `debug(_:)` is public configuration, and a handler may call any store (Threading article: "Each
/// may read and write any store"). Called from a handler of store B on a thread that store A's
/// handling thread waits for, it must neither deadlock nor crash.
@Suite(.timeLimit(.minutes(2))) struct DebugFromHandlerTests {
    @Test func configuringDebugFromAHandlerWhileTheOtherStoreWaitsForUsDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            final class Links: @unchecked Sendable {
                var a: Store<Key, DebugAttackAction, Void>?
                var b: Store<Key, DebugAttackAction, Void>?
                let aInside = DispatchSemaphore(value: 0)
                let bInside = DispatchSemaphore(value: 0)
            }
            let links = Links()
            let handler = StoreActionHandler<Key, DebugAttackAction, Void> { _, action, _ in
                switch action {
                case .sendToOther:  // on thread D, in A's handler
                    links.aInside.signal()
                    _ = links.bInside.wait(timeout: .now() + 10)
                    links.b?.handle(action: .noop)  // B is busy on thread C: D waits for C
                case .configureOtherDebug:  // on thread C, in B's handler
                    links.bInside.signal()
                    _ = links.aInside.wait(timeout: .now() + 10)
                    usleep(100_000)  // D is now waiting for this thread
                    links.a?.debug { _ in }  // A is busy on thread D, which waits for us
                case .noop:
                    break
                }
                return .none
            }
            links.a = Store(initialValues: [:], actionHandler: handler)
            links.b = Store(initialValues: [:], actionHandler: handler)
            let done = DispatchGroup()
            for (store, action) in [(links.a, DebugAttackAction.sendToOther), (links.b, .configureOtherDebug)] {
                done.enter()
                Thread {
                    store?.handle(action: action)
                    done.leave()
                }
                .start()
            }
            if done.wait(timeout: .now() + 30) == .timedOut { exit(2) }
        }
    }
}
