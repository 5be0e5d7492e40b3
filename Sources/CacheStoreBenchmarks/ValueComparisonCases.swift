import CacheStoreTesting

/// A post as an app holds it: a plain struct, not `Equatable`, with strings on the heap.
struct BenchPost: Sendable {
    var id: Int
    var userId: Int
    var title: String
    var body: String

    /// `count` posts keyed by id, made afresh (new strings), in a dictionary of `capacity` so that
    /// two of them keep their entries in different orders.
    static func keyed(_ count: Int, capacity: Int) -> [Int: BenchPost] {
        var posts = [Int: BenchPost](minimumCapacity: capacity)
        for id in 0..<count {
            posts[id] = BenchPost(
                id: id, userId: id % 10, title: "Title of the post number \(id)",
                body: "The body of post \(id), long enough to live on the heap like real text.")
        }
        return posts
    }
}

/// `TestStore.send` of an action that reloads a dictionary of non-`Equatable` structs with the same
/// contents: the cost of comparing the expected and actual values, one key lookup per entry.
enum ValueComparisonCases {
    /// One send per run, as the table times it.
    static func sendReloadedDictionary(size: Int) -> BenchmarkCase {
        sendReloadedDictionary(size: size, operations: 1)
    }

    static func sendReloadedDictionary(size: Int, operations: Int) -> BenchmarkCase {
        let loaded = BenchPost.keyed(size, capacity: size)
        let expected = BenchPost.keyed(size, capacity: size * 4)
        let handler = StoreActionHandler<Int, Int, Void> { state, _, _ in
            state.set(value: loaded, forKey: 0)
            return .none
        }
        let store = TestStore(
            initialValues: [0: BenchPost.keyed(size, capacity: size * 2)], actionHandler: handler, dependency: ())
        return BenchmarkCase("teststore-send-dictionary", size: size, baseline: nil, operations: operations) { index in
            store.send(index) { $0.set(value: expected, forKey: 0) }
        }
    }
}
