import CacheStore
import Foundation
import Observation
import Testing

/// Review 12: typed reads move a value out of an `Any`'s inline buffer, and the store copies and
/// destroys its `Any?`s in place as `Any`s. Every kind of value, read every way, must own exactly
/// the references it copied: each `Tracked` object is released once, never early, never leaked.
@Suite(.serialized, .timeLimit(.minutes(2))) struct Review12AttackTests {
    /// Counts its live instances: a double release ends one early (or crashes), a leak keeps it.
    class Tracked: @unchecked Sendable {
        static let live = LiveCount()
        let id: Int
        init(_ id: Int) {
            self.id = id
            Self.live.add(1)
        }
        deinit { Self.live.add(-1) }
    }
    final class LiveCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add(_ delta: Int) { lock.withLock { count += delta } }
        var value: Int { lock.withLock { count } }
    }
    final class Subtracked: Tracked, @unchecked Sendable {}
    protocol Identified { var id: Int { get } }
    struct One: Identified {
        let object: Tracked
        var id: Int { object.id }
    }
    struct Two: Identified {
        let object: Tracked
        let tag: Int
        var id: Int { object.id }
    }
    struct Three: Identified {
        let tag: Int
        let object: Tracked
        let more: Int
        var id: Int { object.id }
    }
    struct Four: Identified {
        let tag: Int
        let object: Tracked
        let more: Int
        let last: Int
        var id: Int { object.id }
    }
    struct Nothing {}
    struct WeakHolder {
        weak var object: Tracked?
        let strong: Tracked
    }
    struct UnownedHolder {
        unowned let object: Tracked
        let strong: Tracked
    }
    enum Payload {
        case empty
        case one(Tracked)
        case two(Tracked, Int)
    }

    /// `value` inside an `Any` as a generic `T`: the `Any` then holds the `T` itself, an existential
    /// or an optional included (what `[Key: Any]` literals unwrap).
    static func wrapped<T>(_ value: T) -> Any { value }

    /// Reads `key` as `Value` every way a cache can, `rounds` times, and checks each read with `check`.
    static func readEveryWay<Value>(
        _ cache: CacheStore<Key>, _ key: Key, as _: Value.Type, rounds: Int = 50,
        check: (Value?) -> Bool
    ) {
        let scope = cache.scope(keys: [key])
        for _ in 0..<rounds {
            #expect(check(cache.get(key, as: Value.self)), "get \(Value.self)")
            #expect(check(try? cache.resolve(key, as: Value.self)), "resolve \(Value.self)")
            #expect(check(scope.get(key, as: Value.self)), "scope get \(Value.self)")
            withObservationTracking(
                {
                    #expect(check(cache.get(key, as: Value.self)), "observed get \(Value.self)")
                    #expect(check(scope.get(key, as: Value.self)), "observed scope get \(Value.self)")
                }, onChange: {})
            #expect(check(cache.valuesInCache(ofType: Value.self)[key]), "valuesInCache \(Value.self)")
            cache.update(key, as: Value.self) { value in #expect(check(value), "update \(Value.self)") }
        }
    }

    @Test func everyKindOfValueReadEveryWayOwnsExactlyItsReferences() {
        let before = Tracked.live.value
        do {
            let object = Tracked(1)
            let sub = Subtracked(2)
            let cache = CacheStore<Key>(initialValues: [
                .item(1): object,
                .item(2): sub,
                .item(3): One(object: Tracked(3)),
                .item(4): Two(object: Tracked(4), tag: 4),
                .item(5): Three(tag: 5, object: Tracked(5), more: 5),
                .item(6): Four(tag: 6, object: Tracked(6), more: 6, last: 6),
                .item(7): Nothing(),
                .item(8): Self.wrapped(Optional(Tracked(8))),
                .item(9): Self.wrapped(Optional(Optional(Tracked(9)))),
                .item(10): Self.wrapped(Self.wrapped(Tracked(10))),
                .item(11): Self.wrapped(Tracked(11) as AnyObject),
                .item(12): Self.wrapped(One(object: Tracked(12)) as any Identified),
                .item(13): Payload.two(Tracked(13), 13),
                .item(14): Payload.one(Tracked(14)),
                .item(15): WeakHolder(object: object, strong: Tracked(15)),
                .item(16): UnownedHolder(object: object, strong: Tracked(16)),
                .item(17): [Tracked(17), Tracked(17)],
                .item(18): "a string long enough to be held on the heap, not in its own bytes",
                .item(19): Self.wrapped(Optional<Tracked>.none),
                .item(20): Self.wrapped(Four(tag: 20, object: Tracked(20), more: 0, last: 0) as any Identified),
                .item(21): Self.wrapped(sub as Tracked),
            ])
            let held = Tracked.live.value
            Self.readEveryWay(cache, .item(1), as: Tracked.self) { $0 === object }
            Self.readEveryWay(cache, .item(1), as: AnyObject.self) { $0 === object }
            Self.readEveryWay(cache, .item(2), as: Subtracked.self) { $0 === sub }
            Self.readEveryWay(cache, .item(2), as: Tracked.self) { $0 === sub }
            Self.readEveryWay(cache, .item(3), as: One.self) { $0?.id == 3 }
            Self.readEveryWay(cache, .item(3), as: (any Identified).self) { $0?.id == 3 }
            Self.readEveryWay(cache, .item(4), as: Two.self) { $0?.id == 4 }
            Self.readEveryWay(cache, .item(5), as: Three.self) { $0?.id == 5 }
            Self.readEveryWay(cache, .item(6), as: Four.self) { $0?.id == 6 }
            Self.readEveryWay(cache, .item(7), as: Nothing.self) { $0 != nil }
            Self.readEveryWay(cache, .item(8), as: Tracked?.self) { $0??.id == 8 }
            Self.readEveryWay(cache, .item(8), as: Tracked.self) { $0?.id == 8 }
            Self.readEveryWay(cache, .item(9), as: Tracked??.self) { $0???.id == 9 }
            Self.readEveryWay(cache, .item(9), as: Tracked?.self) { $0??.id == 9 }
            Self.readEveryWay(cache, .item(10), as: Any.self) { ($0 as? Tracked)?.id == 10 }
            Self.readEveryWay(cache, .item(10), as: Tracked.self) { $0?.id == 10 }
            Self.readEveryWay(cache, .item(11), as: AnyObject.self) { ($0 as? Tracked)?.id == 11 }
            Self.readEveryWay(cache, .item(11), as: Tracked.self) { $0?.id == 11 }
            Self.readEveryWay(cache, .item(12), as: (any Identified).self) { $0?.id == 12 }
            Self.readEveryWay(cache, .item(12), as: One.self) { $0?.id == 12 }
            Self.readEveryWay(cache, .item(13), as: Payload.self) {
                if case .two(let tracked, 13) = $0 { tracked.id == 13 } else { false }
            }
            Self.readEveryWay(cache, .item(14), as: Payload.self) {
                if case .one(let tracked) = $0 { tracked.id == 14 } else { false }
            }
            Self.readEveryWay(cache, .item(15), as: WeakHolder.self) { $0?.object === object && $0?.strong.id == 15 }
            Self.readEveryWay(cache, .item(16), as: UnownedHolder.self) { $0?.object === object && $0?.strong.id == 16 }
            Self.readEveryWay(cache, .item(17), as: [Tracked].self) { $0?.map(\.id) == [17, 17] }
            Self.readEveryWay(cache, .item(18), as: String.self) { $0?.hasPrefix("a string") == true }
            for _ in 0..<50 { #expect(cache.get(.item(19), as: Tracked?.self).map { $0 == nil } == true) }
            Self.readEveryWay(cache, .item(20), as: (any Identified).self) { $0?.id == 20 }
            Self.readEveryWay(cache, .item(21), as: Subtracked.self) { $0 === sub }
            #expect(Tracked.live.value == held, "reads released exactly what they copied")
            for index in 1...21 where index.isMultiple(of: 2) {
                cache.set(value: Two(object: Tracked(100 + index), tag: index), forKey: .item(index))
            }
            // Ten new objects; the replaced values held eight (`sub` is still held here).
            #expect(Tracked.live.value == held + 10 - 8, "replaced values released once each")
            for index in 1...21 where !index.isMultiple(of: 2) { cache.set(value: nil as Int?, forKey: .item(index)) }
        }
        #expect(Tracked.live.value == before, "nothing leaked, nothing released twice")
    }

    /// Whether `read` is told of `write`: `withObservationTracking`'s `onChange` ran.
    static func isTold(_ read: () -> Void, of write: () -> Void) -> Bool {
        let told = AttackBox(false)
        withObservationTracking(read, onChange: { told.value = true })
        write()
        return told.value
    }

    /// A write of a new key, of an existing key, of a key whose empty slot an observer of the absent
    /// key left, and of a key whose slot a scope's observer keeps after its removal: each tells
    /// exactly the observers of that key and of every key.
    @Test func writesTellTheSameObserversAsBefore() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let scope = cache.scope(keys: [.name, .count])
        #expect(Self.isTold({ _ = cache.allValues }, of: { cache.set(value: "new", forKey: .name) }))
        #expect(!Self.isTold({ _ = cache.get(.count, as: Int.self) }, of: { cache.set(value: 1, forKey: .item(1)) }))
        #expect(Self.isTold({ _ = cache.get(.count, as: Int.self) }, of: { cache.set(value: 2, forKey: .count) }))
        #expect(Self.isTold({ _ = cache.get(.flag, as: Bool.self) }, of: { cache.set(value: true, forKey: .flag) }))
        #expect(Self.isTold({ _ = cache.get(.flag, as: Bool.self) }, of: { cache.set(value: false, forKey: .flag) }))
        #expect(Self.isTold({ _ = scope.get(.name, as: String.self) }, of: { cache.remove(.name) }))
        #expect(
            Self.isTold({ _ = scope.get(.name, as: String.self) }, of: { cache.set(value: "again", forKey: .name) }))
        #expect(scope.get(.name, as: String.self) == "again")
        #expect(Self.isTold({ _ = scope.get(.count, as: Int.self) }, of: { cache.set(value: 3, forKey: .count) }))
        #expect(!Self.isTold({ _ = scope.get(.count, as: Int.self) }, of: { cache.set(value: 3, forKey: .item(2)) }))
        #expect(cache.get(.count, as: Int.self) == 3 && cache.get(.flag, as: Bool.self) == false)
    }
}
