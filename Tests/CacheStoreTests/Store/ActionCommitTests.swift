import CacheStore
import Foundation
import Testing

/// A handler's writes in one action: read back inside it as they were made (a lone write, then more, then
/// removals), committed together when it returns (a value they replace released once the lock is left),
/// reported to `changes`, and never carried into the next action, although the handler's state is reused.
@Suite(.timeLimit(.minutes(2))) struct ActionCommitTests {
    enum Key: Hashable, Sendable { case a, b, c }

    enum Action: Sendable { case run(Int) }

    /// A store whose every action runs `body` on the handler's state.
    static func store(
        _ initial: [Key: Any], _ body: @escaping @Sendable (CacheStore<Key>, Int) -> Void
    ) -> Store<Key, Action, Void> {
        Store(
            initialValues: initial,
            actionHandler: StoreActionHandler { state, action, _ in
                if case .run(let step) = action { body(state, step) }
                return .none
            })
    }

    // MARK: - A lone write, then more, then removals

    /// One key written, then a second (the first moves into the arrays), then the first removed:
    /// reads, `allValues` and `contains` inside the handler see each write, and the commit applies
    /// them all.
    @Test func aLoneWriteMovedIntoTheArraysThenRemovedIsReadBackAndCommitted() {
        let seen = Recorder<String>()
        let store = Self.store([.a: 0, .c: 9]) { state, _ in
            state.set(value: 1, forKey: .a)
            seen.append("a=\(state.get(.a, as: Int.self).map(String.init) ?? "nil")")
            state.set(value: 2, forKey: .b)
            state.remove(.a)
            seen.append("a=\(state.get(.a, as: Int.self).map(String.init) ?? "nil")")
            seen.append("contains a: \(state.contains(.a)), b: \(state.contains(.b))")
            seen.append("keys: \(state.allValues.keys.map { "\($0)" }.sorted())")
        }
        store.handle(action: .run(0))
        #expect(seen.values == ["a=1", "a=nil", "contains a: false, b: true", "keys: [\"b\", \"c\"]"])
        #expect(store.get(.a, as: Int.self) == nil)
        #expect(store.get(.b, as: Int.self) == 2)
        #expect(store.get(.c, as: Int.self) == 9)
    }

    /// A key written then removed in one action, the only key written: the removal is what commits,
    /// and `allValues` inside the handler leaves the key out (a `nil` held apart is a removal).
    @Test func aLoneKeyWrittenThenRemovedEndsAbsent() {
        let seen = Recorder<String>()
        let store = Self.store([.a: 5]) { state, _ in
            state.set(value: 1, forKey: .a)
            state.remove(.a)
            seen.append("\(state.contains(.a)) \(state.allValues.count)")
            state.update(.a, as: Int.self) { value in value = (value ?? 100) + 1 }
            seen.append("\(state.get(.a, as: Int.self) ?? -1)")
            state.remove(.a)
        }
        store.handle(action: .run(0))
        #expect(seen.values == ["false 0", "101"])
        #expect(!store.contains(.a))
        #expect(store.allValues.isEmpty)
    }

    /// The handler state is reused from action to action: a lone write, then several, then a lone
    /// write of another key, then none. No write leaks into the next action, none is lost.
    @Test func aReusedTransactionCarriesNoWriteIntoTheNextAction() {
        let store = Self.store([:]) { state, step in
            switch step {
            case 0: state.set(value: 1, forKey: .a)
            case 1:
                state.update(.a, as: Int.self) { $0 = ($0 ?? 0) + 10 }
                state.set(value: 2, forKey: .b)
                state.set(value: 3, forKey: .c)
            case 2: state.set(value: 20, forKey: .b)
            case 3: _ = state.get(.a, as: Int.self)
            default: state.update(.c, as: Int.self) { $0 = ($0 ?? 0) + 1 }
            }
        }
        for step in 0..<5 { store.handle(action: .run(step)) }
        #expect(store.get(.a, as: Int.self) == 11)
        #expect(store.get(.b, as: Int.self) == 20)
        #expect(store.get(.c, as: Int.self) == 4)
    }

    /// A store's actions each write one key (the lone-write commit), observed through `changes`:
    /// every action's key is reported.
    @Test func loneWritesAreReportedToChanges() async {
        let store = Self.store([:]) { state, step in
            state.set(value: step, forKey: step.isMultiple(of: 2) ? .a : .b)
        }
        var changes = store.changes.makeAsyncIterator()
        store.handle(action: .run(0))
        let first = await changes.next()
        #expect(first == [.a])
        store.handle(action: .run(1))
        let second = await changes.next()
        #expect(second == [.b])
    }

    /// A value whose `deinit` reads the store that held it, replaced by an action's lone write (the
    /// one-write commit): the replaced value is released once the lock is left, so the read in its
    /// `deinit` takes the (non-recursive) lock without deadlocking.
    @Test func aValueReplacedByALoneWriteReadsItsStoreFromItsDeinit() async {
        final class Reentrant: @unchecked Sendable {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class WeakStore: @unchecked Sendable {
            weak var store: Store<Key, Action, Void>?
        }
        let box = WeakStore()
        let seen = Recorder<Int?>()
        let store = Self.store([.a: Reentrant { seen.append(box.store?.get(.c, as: Int.self)) }, .c: 3]) {
            state, step in state.set(value: step, forKey: .a)
        }
        box.store = store
        let finished = await finishes(within: 60) { store.handle(action: .run(0)) }
        #expect(finished)
        #expect(seen.values == [3])
    }

    // MARK: - A state replaced by a scope of itself

    /// A handler that writes a key, then assigns its state a scope of itself.
    @Suite(.timeLimit(.minutes(2))) struct ReplacedByAScopeOfItself {
        enum Key: Hashable, Sendable { case a, b }

        enum Action: Equatable, Sendable {
            case start
            case startMapped
            case searchNow
            case done(Int)
        }

        /// A handler writes a key, then assigns its state a scope of itself (a live view, read after
        /// the handler returns): the state becomes what the scope holds, the write included. Keys left
        /// out of the scope are removed.
        @Test func aStateReplacedByAScopeOfItselfKeepsTheHandlersWrite() {
            let store = Store<Key, Action, Void>(
                initialValues: [.a: 1, .b: 2],
                actionHandler: StoreActionHandler { state, action, _ in
                    guard action == .start else { return .none }
                    state.set(value: 10, forKey: .a)
                    state = state.scope(keys: [.a])
                    return .none
                },
                dependency: ())
            store.handle(action: .start)
            #expect(store.get(.a, as: Int.self) == 10)
            #expect(!store.contains(.b))
        }
    }
}
