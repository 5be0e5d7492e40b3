import CacheStore
import Foundation
import Observation
import Testing

/// The keys and actions of ``StoreBindingTests``.
enum CacheStoreTests_Binding {
    enum Key: Hashable, Sendable { case name, size }
    enum Action: Sendable {
        case rename(String)
        case resize(Int)
    }

    /// Renames to anything but an empty name; sizes are clamped to 8...72.
    static let handler = StoreActionHandler<Key, Action, Void> { state, action, _ in
        switch action {
        case .rename(let name):
            if !name.isEmpty { state.set(value: name, forKey: .name) }
        case .resize(let size):
            state[.size] = min(max(size, 8), 72)
        }
        return .none
    }
}

extension TypedKey<CacheStoreTests_Binding.Key, Int> {
    fileprivate static var size: Self { .init(.size, default: 14) }
}

/// A binding reads its key and changes it only by sending an action, so the handler decides.
@Suite(.timeLimit(.minutes(1))) struct StoreBindingTests {
    typealias Fixture = CacheStoreTests_Binding

    @Test func aTypedBindingReadsTheDefaultThenWhatTheHandlerKept() {
        let store = Store(initialValues: [:], actionHandler: Fixture.handler)
        let size = store.binding(.size, using: Fixture.Action.resize)
        #expect(size.wrappedValue == 14)
        size.wrappedValue = 20
        #expect(size.get() == 20)
        size.set(500)
        #expect(size.wrappedValue == 72, "the handler clamped the value the binding sent")
        #expect(store[.size] == 72)
    }

    @Test func aPlainKeysBindingReadsItsFallbackUntilTheKeyHasAValueOfItsType() {
        let store = Store(initialValues: [.name: 42], actionHandler: Fixture.handler)
        let name = store.binding(.name, fallback: "anonymous", using: Fixture.Action.rename)
        #expect(name.wrappedValue == "anonymous", "an Int under .name reads as the fallback")
        name.wrappedValue = ""
        #expect(name.wrappedValue == "anonymous", "the handler rejected the empty name")
        name.wrappedValue = "Ada"
        #expect(name.wrappedValue == "Ada")
    }

    @Test func readingABindingTracksItsKey() {
        let store = Store(initialValues: [:], actionHandler: Fixture.handler)
        let size = store.binding(.size, using: Fixture.Action.resize)
        let fired = Recorder<Int>()
        withObservationTracking({ _ = size.wrappedValue }, onChange: { fired.append(1) })
        store.handle(action: .rename("Ada"))
        #expect(fired.values.isEmpty, "another key's change does not fire")
        size.wrappedValue = 30
        #expect(fired.values == [1])
    }
}
