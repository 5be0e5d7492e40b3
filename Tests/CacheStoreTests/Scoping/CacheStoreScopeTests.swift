import CacheStore
import Testing

enum FeatureKey: Hashable, Sendable {
    case counter, label, localOnly
}

/// `.count` ↔ `.counter`, `.name` ↔ `.label`; `.localOnly` lives in the scope.
let featureKeys: BiDirectionalTransformation<Key?, FeatureKey?> = (
    from: { key in
        switch key {
        case .count: .counter
        case .name: .label
        default: nil
        }
    },
    to: { featureKey in
        switch featureKey {
        case .counter: .count
        case .label: .name
        default: nil
        }
    }
)

@Suite(.timeLimit(.minutes(2))) struct CacheStoreScopeTests {
    @Test func keySubsetScopeShowsOnlyItsKeys() {
        let parent = CacheStore<Key>(initialValues: [.count: 1, .name: "x", .flag: true])
        let scope = parent.scope(keys: [.count, .name])
        #expect(scope.get(.count, as: Int.self) == 1)
        #expect(scope.get(.flag, as: Bool.self) == nil)
        #expect(!scope.contains(.flag))
        #expect(Set(scope.allValues.keys) == [.count, .name])
    }

    @Test func scopeWritesAreSeenByTheParentAtOnce() {
        let parent = CacheStore<Key>(initialValues: [.count: 1])
        let scope = parent.scope(keys: [.count])
        scope.set(value: 2, forKey: .count)
        #expect(parent.get(.count, as: Int.self) == 2)
        scope.remove(.count)
        #expect(!parent.contains(.count))
    }

    @Test func parentWritesAfterCreationAreSeenByTheScopeAtOnce() {
        // The original CacheStore copied the parent when scoping, so this read the stale 1.
        let parent = CacheStore<Key>(initialValues: [.count: 1])
        let scope = parent.scope(keys: [.count])
        parent.set(value: 42, forKey: .count)
        #expect(scope.get(.count, as: Int.self) == 42)
        parent.remove(.count)
        #expect(scope.get(.count, as: Int.self) == nil)
    }

    @Test func keySubsetScopeKeepsWritesOutsideTheSubsetToItself() {
        let parent = CacheStore<Key>(initialValues: [.flag: true])
        let scope = parent.scope(keys: [.count])
        scope.set(value: false, forKey: .flag)
        #expect(scope.get(.flag, as: Bool.self) == false)
        #expect(parent.get(.flag, as: Bool.self) == true)
    }

    @Test func transformedScopeMapsKeysBothWays() {
        let parent = CacheStore<Key>(initialValues: [.count: 1, .name: "n", .flag: true])
        let scope = parent.scope(keyTransformation: featureKeys)
        #expect(scope.get(.counter, as: Int.self) == 1)
        #expect(scope.get(.label, as: String.self) == "n")
        #expect(Set(scope.allValues.keys) == [.counter, .label])  // .flag maps to nil: invisible

        scope.set(value: 5, forKey: .counter)
        #expect(parent.get(.count, as: Int.self) == 5)
        parent.set(value: "renamed", forKey: .name)
        #expect(scope.get(.label, as: String.self) == "renamed")
    }

    @Test func defaultCacheSeedsScopeLocalKeysWithoutTouchingTheParent() {
        let parent = CacheStore<Key>(initialValues: [:])
        let scope = parent.scope(keyTransformation: featureKeys, defaultCache: [.localOnly: "seed"])
        #expect(scope.get(.localOnly, as: String.self) == "seed")
        scope.set(value: "changed", forKey: .localOnly)
        #expect(scope.get(.localOnly, as: String.self) == "changed")
        #expect(parent.allValues.isEmpty)
    }

    @Test func defaultForAMappedKeyIsAFallbackNeverWrittenToTheParent() {
        let parent = CacheStore<Key>(initialValues: [:])
        let scope = parent.scope(keyTransformation: featureKeys, defaultCache: [.counter: 0])
        #expect(scope.get(.counter, as: Int.self) == 0)
        #expect(!parent.contains(.count))
        parent.set(value: 3, forKey: .count)
        #expect(scope.get(.counter, as: Int.self) == 3)
    }

    @Test func nonInjectiveTransformationShowsTheParentKeyThatToNames() {
        // Both .count and .other map to .counter; `to` names .count, so .counter shows .count only.
        let parent = CacheStore<Key>(initialValues: [.count: 1, .other: 99])
        let scope: CacheStore<FeatureKey> = parent.scope(
            keyTransformation: (
                from: { key in key == .count || key == .other ? .counter : nil },
                to: { featureKey in featureKey == .counter ? .count : nil }
            ))
        #expect(scope.get(.counter, as: Int.self) == 1)
        #expect(scope.allValues.count == 1)
        #expect(scope.allValues[.counter] as? Int == 1)
        scope.set(value: 2, forKey: .counter)
        #expect(parent.get(.count, as: Int.self) == 2)
        #expect(parent.get(.other, as: Int.self) == 99)
    }

    @Test func scopeOfAScopeComposesBothMappings() {
        let root = CacheStore<Key>(initialValues: [.count: 1, .name: "n"])
        let feature = root.scope(keyTransformation: featureKeys)
        let counterOnly = feature.scope(keys: [.counter])
        #expect(counterOnly.get(.counter, as: Int.self) == 1)
        #expect(counterOnly.get(.label, as: String.self) == nil)
        counterOnly.set(value: 7, forKey: .counter)
        #expect(root.get(.count, as: Int.self) == 7)
        root.set(value: 8, forKey: .count)
        #expect(counterOnly.get(.counter, as: Int.self) == 8)
    }

    @Test func updateThroughAScopeIsAtomicOnTheParentStorage() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keyTransformation: featureKeys)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<2_000 { parent.update(.count, as: Int.self) { $0 = ($0 ?? 0) + 1 } } }
            group.addTask { for _ in 0..<2_000 { scope.update(.counter, as: Int.self) { $0 = ($0 ?? 0) + 1 } } }
        }
        #expect(parent.get(.count, as: Int.self) == 4_000)
    }

    @Test func copyOfAScopeIsAPlainCacheOfItsVisibleKeys() {
        let parent = CacheStore<Key>(initialValues: [.count: 1, .flag: true])
        let copy = parent.scope(keyTransformation: featureKeys).copy()
        parent.set(value: 2, forKey: .count)
        #expect(copy.get(.counter, as: Int.self) == 1)
        #expect(copy.allValues.count == 1)
    }
}
