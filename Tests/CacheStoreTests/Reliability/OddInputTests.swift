import CacheStore
import Foundation
import Testing

/// Keys, transformations and values at the edges of what users pass.
@Suite(.timeLimit(.minutes(2))) struct OddInputTests {
    /// Every key hashes the same: every lookup is a collision.
    struct CollidingKey: Hashable, Sendable {
        var id: Int
        func hash(into hasher: inout Hasher) { hasher.combine(0) }
    }

    @Test func keysThatAllHashTheSameStillWork() {
        let cache = CacheStore<CollidingKey>(initialValues: [:])
        for id in 0..<500 { cache.set(value: id, forKey: CollidingKey(id: id)) }
        for id in stride(from: 0, to: 500, by: 2) { cache.remove(CollidingKey(id: id)) }
        let odd = cache.scope(keys: Set((0..<500).map(CollidingKey.init)))
        #expect(cache.allValues.count == 250)
        #expect(odd.get(CollidingKey(id: 7), as: Int.self) == 7)
        #expect(odd.get(CollidingKey(id: 8), as: Int.self) == nil)
        let store = Store(
            initialValues: [CollidingKey(id: 1): 1],
            actionHandler: StoreActionHandler<CollidingKey, Int, Void> { state, id, _ in
                state.update(CollidingKey(id: id), as: Int.self) { $0 = ($0 ?? 0) + 1 }
                return .none
            })
        for id in 0..<100 { store.handle(action: id % 10) }
        #expect(store.get(CollidingKey(id: 1), as: Int.self) == 11)
        #expect(store.allValues.count == 10)
    }

    @Test func aNonInjectiveTransformationInAScopedStoreFollowsTheDocumentedRule() {
        // .count and .other both map to .counter; `to` names .count, so the scoped store shows and
        // writes .count, and .other stays invisible and untouched.
        let parent = Store(initialValues: [.count: 1, .other: 50], actionHandler: counterHandler)
        let scoped = parent.scope(
            keyTransformation: (
                from: { key in key == .count || key == .other ? .counter : nil },
                to: { featureKey in featureKey == .counter ? .count : nil }
            ),
            actionHandler: featureHandler,
            dependencyTransformation: { _ in 5 })
        scoped.handle(action: .bump)
        #expect(parent.get(.count, as: Int.self) == 6)
        #expect(parent.get(.other, as: Int.self) == 50)
        #expect(scoped.allValues.count == 1)
    }

    @Test func aTenMegabyteValueIsSetAndDiffedInDebugMode() async {
        let reports = Recorder<String>()
        let big = [UInt8](repeating: 0, count: 10_000_000)
        let store = Store(
            initialValues: [.list: big],
            actionHandler: StoreActionHandler<Key, Int, Void> { state, index, _ in
                state.update(.list, as: [UInt8].self) { $0?[index] = 1 }
                return .none
            }
        ).debug { reports.append($0) }
        await offThePool {  // seconds of diffing: a thread of its own, not the pool's
            store.handle(action: 9_999_999)
            store.handle(action: 3)
        }
        #expect(store.get(.list, as: [UInt8].self)?[9_999_999] == 1)
        #expect(reports.values.count == 2)
        // A change past the elements shown by default is shown amid its neighbours.
        #expect(reports.values[0].contains("  ~ .list:\n      [\n        … 9999949 before,\n        0,"))
        #expect(reports.values[0].contains("−       0\n+       1\n      ]"))
        #expect(reports.values[1].contains("−       0,\n+       1,"))
        #expect(reports.values.allSatisfy { $0.count < 5_000 })
    }
}
