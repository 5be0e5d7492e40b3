import CacheStore
import Testing

extension CPUHeavySuites {
    /// Model-based random testing of actions: the operations of ``CacheStoreModelTests`` sent as actions
    /// to a root store and to scoped stores over it (a key-transformed one and a key-subset one), checked
    /// after every step against the same model.
    @Suite(.serialized, .timeLimit(.minutes(10))) struct StoreModelTests {
        /// Seeds run one at a time, each off the concurrency pool: the runs are CPU-bound.
        @Test(arguments: CacheStoreModelTests.seeds)
        func randomActionsAgreeWithTheModel(seed: UInt64) async {
            let failure = await offThePool { Self.run(seed: seed) }
            if let failure { Issue.record(Comment(rawValue: failure)) }
        }

        /// The run for `seed`: `nil`, or what went wrong, where.
        static func run(seed: UInt64) -> String? {
            var model = CacheModel()
            var random = SeededGenerator(seed: seed)
            let stores = StoreViews()
            for step in 0..<CacheStoreModelTests.steps {
                let operation = CacheOperation.random(using: &random)
                guard stores.send(operation) else { continue }
                model.apply(operation)
                if let mismatch = model.firstMismatch(
                    root: stores.root.allValues, evens: stores.evens.allValues,
                    named: stores.named.allValues, nested: stores.nested.allValues)
                {
                    return "seed \(seed), step \(step), after sending \(operation): \(mismatch)"
                }
            }
            return nil
        }
    }
}

/// A root store and two scoped stores whose handlers apply ``CacheOperation``s to their state.
struct StoreViews {
    let root = Store<Int, CacheOperation, Void>(initialValues: [:], actionHandler: operationHandler())
    let evens: Store<Int, CacheOperation, Void>
    let named: Store<String, CacheOperation, Void>
    let nested: Store<String, CacheOperation, Void>

    init() {
        evens = root.scope(
            keys: Set(stride(from: 0, to: 16, by: 2)), actionHandler: operationHandler(),
            dependencyTransformation: { $0 })
        named = root.scope(
            keyTransformation: (
                from: { key in key.flatMap { $0 < 8 ? "k\($0)" : nil } },
                to: { name in name.flatMap { name in Int(name.dropFirst()).flatMap { $0 < 8 ? $0 : nil } } }
            ),
            actionHandler: operationHandler())
        nested = named.scope(
            keys: CacheModel.nestedNames, actionHandler: operationHandler(), dependencyTransformation: { $0 })
    }

    /// Sends `operation` to the store it is for; `false` for operations stores have no action for.
    func send(_ operation: CacheOperation) -> Bool {
        switch operation {
        case .copyAndDiverge: return false
        case .set, .remove, .setNil, .add: root.handle(action: operation)
        case .setEven, .removeEven: evens.handle(action: operation)
        case .setNamed, .removeNamed: named.handle(action: operation)
        case .addNested: nested.handle(action: operation)
        }
        return true
    }
}

/// Applies each operation to the handler's own state, whatever view the operation names.
func operationHandler<Key: Hashable & SendableMetatype>() -> StoreActionHandler<Key, CacheOperation, Void> {
    StoreActionHandler { state, operation, _ in
        switch operation {
        case .set(let key, let value), .setEven(let key, let value):
            state.set(value: value, forKey: key as! Key)
        case .remove(let key), .removeEven(let key):
            state.remove(key as! Key)
        case .setNil(let key):
            state.set(value: nil as Int?, forKey: key as! Key)
        case .add(let key, let amount):
            state.update(key as! Key, as: Int.self) { $0 = ($0 ?? 0) + amount }
        case .setNamed(let name, let value):
            state.set(value: value, forKey: name as! Key)
        case .removeNamed(let name):
            state.remove(name as! Key)
        case .addNested(let name, let amount):
            state.update(name as! Key, as: Int.self) { $0 = ($0 ?? 0) + amount }
        case .copyAndDiverge:
            break
        }
        return .none
    }
}
