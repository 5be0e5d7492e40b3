import CacheStore
import Foundation
import Observation
import Testing

/// A typed read loads a value stored as its own small type straight from the `Any`'s buffer, and casts
/// everything else: each read here must return what `as?` on the stored `Any` returns.
@Suite(.timeLimit(.minutes(2))) struct StoredValueCastTests {
    class Animal: @unchecked Sendable {}
    final class Dog: Animal, @unchecked Sendable {}
    protocol Named { var name: String { get } }
    struct Pet: Named, Equatable { var name: String }
    /// Three words: the largest value an `Any` holds inline.
    struct Triple: Equatable { var a, b, c: Int }
    /// Four words: held in a box.
    struct Quad: Equatable { var a, b, c, d: Int }
    /// Aligned to 16 bytes: held in a box although it is small.
    struct Wide: Equatable { var vector = SIMD4<Float>(1, 2, 3, 4) }
    enum Mode: Equatable {
        case on
        case off(Int)
    }

    @Test func aValueReadAsItsOwnTypeComesBackWhole() {
        let cache = CacheStore<Key>(initialValues: [:])
        cache.set(value: Triple(a: 1, b: 2, c: 3), forKey: .item(1))
        cache.set(value: Quad(a: 1, b: 2, c: 3, d: 4), forKey: .item(2))
        cache.set(value: Wide(), forKey: .item(3))
        cache.set(value: Mode.off(7), forKey: .item(4))
        cache.set(value: "a string longer than fifteen bytes, so on the heap", forKey: .item(5))
        cache.set(value: 2.5, forKey: .item(6))
        #expect(cache.get(.item(1), as: Triple.self) == Triple(a: 1, b: 2, c: 3))
        #expect(cache.get(.item(2), as: Quad.self) == Quad(a: 1, b: 2, c: 3, d: 4))
        #expect(cache.get(.item(3), as: Wide.self) == Wide())
        #expect(cache.get(.item(4), as: Mode.self) == .off(7))
        #expect(cache.get(.item(5), as: String.self) == "a string longer than fifteen bytes, so on the heap")
        #expect(cache.get(.item(6), as: Double.self) == 2.5)
    }

    /// Functions and metatypes are held in an `Any` at their most general representation, which is
    /// also what a load of them from memory reads.
    @Test func functionsMetatypesAndTuplesComeBackWhole() {
        let triple: @Sendable (Int) -> Int = { $0 * 3 }
        let swap: @Sendable (String, Int) -> (Int, String) = { ($1, $0) }
        let cache = CacheStore<Key>(initialValues: [.item(1): triple, .item(2): swap, .item(3): Int.self])
        cache.set(value: (1, "two"), forKey: .item(4))
        #expect(cache.get(.item(1), as: (@Sendable (Int) -> Int).self)?(5) == 15)
        let swapped = cache.get(.item(2), as: (@Sendable (String, Int) -> (Int, String)).self)?("a", 1)
        #expect(swapped?.0 == 1 && swapped?.1 == "a")
        #expect(cache.get(.item(3), as: Int.Type.self) == Int.self)
        let pair = cache.get(.item(4), as: (Int, String).self)
        #expect(pair?.0 == 1 && pair?.1 == "two")
    }

    @Test func otherTypesAreCastAsAsDoes() {
        let cache = CacheStore<Key>(initialValues: [.count: 1, .name: Pet(name: "Rex")])
        #expect(cache.get(.count, as: Double.self) == nil)
        #expect(cache.get(.count, as: Int8.self) == nil)
        #expect(cache.get(.count, as: Int?.self) == .some(1))
        #expect(cache.get(.count, as: Any.self) as? Int == 1)
        #expect(cache.get(.count, as: (any Hashable).self) as? Int == 1)
        #expect(cache.get(.name, as: (any Named).self)?.name == "Rex")
        #expect(cache.get(.name, as: Triple.self) == nil)
        #expect(cache.get(.flag, as: Int.self) == nil)
    }

    @Test func aClassInstanceReadsAsItsClassAndItsSuperclassesOnly() {
        let dog = Dog()
        let cache = CacheStore<Key>(initialValues: [.item(1): dog])
        cache.set(value: dog as Animal, forKey: .item(2))
        #expect(cache.get(.item(1), as: Dog.self) === dog)
        #expect(cache.get(.item(1), as: Animal.self) === dog)
        #expect(cache.get(.item(1), as: AnyObject.self) === dog)
        #expect(cache.get(.item(2), as: Dog.self) === dog)
        #expect(cache.get(.item(2), as: Animal.self) === dog)
        cache.set(value: Animal(), forKey: .item(3))
        #expect(cache.get(.item(3), as: Dog.self) == nil)
    }

    @Test func aReadValueOwnsItsReference() {
        let cache = CacheStore<Key>(initialValues: [.item(1): Dog()])
        weak var released: Dog?
        do {
            let dog = cache.get(.item(1), as: Dog.self)
            released = dog
            cache.remove(.item(1))
            #expect(released != nil, "the read value keeps the object alive after its key is removed")
            withExtendedLifetime(dog) {}
        }
        #expect(released == nil, "and releases it after its last use")
    }

    /// Two words, one a reference: held inline in an `Any`, and copied with a retain.
    struct Holder {
        let object: ReleaseProbe
        let tag: Int
    }

    /// A typed read moves the value out of its own copy of the `Any` (the copy is not destroyed after),
    /// and the store's replaced values are destroyed in place: each copy owns exactly one reference.
    /// Reading more than was stored would release the object while the cache holds it (a crash, or
    /// `released` too early); reading less would leak it (`released` stays 0).
    @Test func readsAndReplacementsOwnExactlyTheReferencesTheyMake() {
        let released = Recorder<Int>()
        let cache = CacheStore<Key>(initialValues: [:])
        cache.set(value: Holder(object: ReleaseProbe { released.append(1) }, tag: 1), forKey: .item(1))
        for _ in 0..<1_000 {
            withObservationTracking({ #expect(cache.get(.item(1), as: Holder.self)?.tag == 1) }, onChange: {})
            #expect(cache.get(.item(1), as: Holder.self)?.tag == 1)
        }
        var kept = cache.get(.item(1), as: Holder.self)
        cache.set(value: Holder(object: ReleaseProbe { released.append(1) }, tag: 2), forKey: .item(1))
        #expect(released.values.count == 0, "the read copy keeps the replaced value's object")
        kept = nil
        #expect(released.values.count == 1, "released with the last copy, once")
        withExtendedLifetime(kept) {}

        let store = Store(
            initialValues: [.item(1): Holder(object: ReleaseProbe { released.append(1) }, tag: 3)],
            actionHandler: StoreActionHandler<Key, Int, Void> { state, tag, _ in
                state.set(value: Holder(object: ReleaseProbe { released.append(1) }, tag: tag), forKey: .item(1))
                return .none
            })
        for tag in 4..<1_004 {
            store.handle(action: tag)
            #expect(store.get(.item(1), as: Holder.self)?.tag == tag)
        }
        #expect(released.values.count == 1_001, "each action's replaced value released once")
        cache.remove(.item(1))
        #expect(released.values.count == 1_002)
    }

    @Test func resolveUpdateAndValuesInCacheReadTheSameWay() throws {
        let cache = CacheStore<Key>(initialValues: [.count: 1, .name: "Ada", .item(1): Triple(a: 1, b: 2, c: 3)])
        #expect(try cache.resolve(.item(1), as: Triple.self) == Triple(a: 1, b: 2, c: 3))
        #expect(throws: CacheStore<Key>.InvalidTypeError.self) { try cache.resolve(.count, as: String.self) }
        cache.update(.count, as: Int.self) { value in value? += 1 }
        #expect(cache.get(.count, as: Int.self) == 2)
        cache.update(.name, as: Int.self) { value in #expect(value == nil) }
        #expect(cache.valuesInCache(ofType: Int.self) == [.count: 2])
        #expect(cache.valuesInCache(ofType: Triple.self) == [.item(1): Triple(a: 1, b: 2, c: 3)])
    }

    // MARK: - Every kind of value, read every way

    /// Typed reads move a value out of an `Any`'s inline buffer, and the store copies and destroys its `Any?`s
    /// in place as `Any`s: every kind of value, read every way, owns exactly the references it copied, so each
    /// `Tracked` object is released once, never early, never leaked. One test at a time: `Tracked` counts its
    /// live instances in the whole process.
    @Suite(.serialized, .timeLimit(.minutes(2))) struct EveryKindOfValue {
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
                Self.readEveryWay(cache, .item(15), as: WeakHolder.self) {
                    $0?.object === object && $0?.strong.id == 15
                }
                Self.readEveryWay(cache, .item(16), as: UnownedHolder.self) {
                    $0?.object === object && $0?.strong.id == 16
                }
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
                for index in 1...21 where !index.isMultiple(of: 2) {
                    cache.set(value: nil as Int?, forKey: .item(index))
                }
            }
            #expect(Tracked.live.value == before, "nothing leaked, nothing released twice")
        }
    }
}
