import CacheStore
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
}
