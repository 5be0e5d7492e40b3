import CacheStore
import Foundation
import Testing

extension CPUHeavySuites {
    /// Model-based random testing: random operations on a cache and its scopes, checked after every
    /// step against plain dictionaries that say what each view must show.
    ///
    /// Views: the root (keys 0..<16); `evens`, a key-subset scope of the even keys; `named`, a
    /// key-transformed scope that names keys 0..<8 "k0"…"k7" (other names live in the scope only);
    /// `nested`, a key-subset scope of `named` showing "k0"…"k3" and "extra".
    ///
    /// A failure names its seed; set `CACHESTORE_MODEL_SEED` to replay that seed alone. ``Soak`` says how
    /// many seeds and steps run (few by default, the full soak with `CACHESTORE_SOAK=1`).
    @Suite(.serialized, .timeLimit(.minutes(10))) struct CacheStoreModelTests {
        static let steps = Soak.modelSteps
        static var seeds: [UInt64] {
            if let text = ProcessInfo.processInfo.environment["CACHESTORE_MODEL_SEED"], let seed = UInt64(text) {
                return [seed]
            }
            return (1...Soak.seedCount).map { UInt64($0) &* 0x5DEE_CE66D }
        }

        /// Seeds run one at a time, each off the concurrency pool: the runs are CPU-bound.
        @Test(arguments: seeds)
        func randomOperationsAgreeWithTheModel(seed: UInt64) async {
            let failure = await offThePool { Self.run(seed: seed) }
            if let failure { Issue.record(Comment(rawValue: failure)) }
        }

        /// The run for `seed`: `nil`, or what went wrong, where.
        static func run(seed: UInt64) -> String? {
            var model = CacheModel()
            var random = SeededGenerator(seed: seed)
            let views = CacheViews()
            for step in 0..<steps {
                let operation = CacheOperation.random(using: &random)
                operation.apply(to: views)
                model.apply(operation)
                if let mismatch = model.firstMismatch(with: views) {
                    return "seed \(seed), step \(step), after \(operation): \(mismatch)"
                }
            }
            return nil
        }
    }
}

/// The views under test, made once per run.
struct CacheViews {
    let root = CacheStore<Int>(initialValues: [:])
    let evens: CacheStore<Int>
    let named: CacheStore<String>
    let nested: CacheStore<String>

    init() {
        evens = root.scope(keys: Set(stride(from: 0, to: 16, by: 2)))
        named = root.scope(
            keyTransformation: (
                from: { key in key.flatMap { $0 < 8 ? "k\($0)" : nil } },
                to: { name in name.flatMap { name in Int(name.dropFirst()).flatMap { $0 < 8 ? $0 : nil } } }
            ))
        nested = named.scope(keys: ["k0", "k1", "k2", "k3", "extra"])
    }
}

/// One random step.
enum CacheOperation: CustomStringConvertible {
    case set(key: Int, value: Int)
    case remove(key: Int)
    case setNil(key: Int)
    case add(key: Int, amount: Int)
    case copyAndDiverge(key: Int, value: Int)
    case setEven(key: Int, value: Int)
    case removeEven(key: Int)
    case setNamed(name: String, value: Int)
    case removeNamed(name: String)
    case addNested(name: String, amount: Int)

    static let names = (0..<10).map { "k\($0)" } + ["extra", "other"]

    static func random(using random: inout SeededGenerator) -> CacheOperation {
        let key = Int.random(in: 0..<16, using: &random)
        let value = Int.random(in: -5...5, using: &random)
        let name = names.randomElement(using: &random)!
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .set(key: key, value: value)
        case 1: return .remove(key: key)
        case 2: return .setNil(key: key)
        case 3: return .add(key: key, amount: value)
        case 4: return .copyAndDiverge(key: key, value: value)
        case 5: return .setEven(key: key, value: value)
        case 6: return .removeEven(key: key)
        case 7: return .setNamed(name: name, value: value)
        case 8: return .removeNamed(name: name)
        default: return .addNested(name: name, amount: value)
        }
    }

    func apply(to views: CacheViews) {
        switch self {
        case .set(let key, let value): views.root.set(value: value, forKey: key)
        case .remove(let key): views.root.remove(key)
        case .setNil(let key): views.root.set(value: nil as Int?, forKey: key)
        case .add(let key, let amount): views.root.update(key, as: Int.self) { $0 = ($0 ?? 0) + amount }
        case .copyAndDiverge(let key, let value): views.root.copy().set(value: value, forKey: key)
        case .setEven(let key, let value): views.evens.set(value: value, forKey: key)
        case .removeEven(let key): views.evens.remove(key)
        case .setNamed(let name, let value): views.named.set(value: value, forKey: name)
        case .removeNamed(let name): views.named.remove(name)
        case .addNested(let name, let amount): views.nested.update(name, as: Int.self) { $0 = ($0 ?? 0) + amount }
        }
    }

    var description: String {
        switch self {
        case .set(let key, let value): "root.set(\(value), \(key))"
        case .remove(let key): "root.remove(\(key))"
        case .setNil(let key): "root.set(nil, \(key))"
        case .add(let key, let amount): "root.update(\(key), +\(amount))"
        case .copyAndDiverge(let key, let value): "root.copy().set(\(value), \(key))"
        case .setEven(let key, let value): "evens.set(\(value), \(key))"
        case .removeEven(let key): "evens.remove(\(key))"
        case .setNamed(let name, let value): "named.set(\(value), \(name))"
        case .removeNamed(let name): "named.remove(\(name))"
        case .addNested(let name, let amount): "nested.update(\(name), +\(amount))"
        }
    }
}

/// What each view must show: plain dictionaries, updated by the documented rules.
struct CacheModel {
    var root: [Int: Int] = [:]
    /// Values written through `evens` to odd keys: outside its subset, so kept in the scope.
    var evensLocal: [Int: Int] = [:]
    /// Values of names that map to no root key, kept in `named`.
    var namedLocal: [String: Int] = [:]
    /// Values written through `nested` to names outside its subset.
    var nestedLocal: [String: Int] = [:]

    static let nestedNames: Set<String> = ["k0", "k1", "k2", "k3", "extra"]

    /// The root key a name maps to, if any (k0…k7).
    static func rootKey(_ name: String) -> Int? {
        guard name.hasPrefix("k"), let number = Int(name.dropFirst()), number < 8 else { return nil }
        return number
    }

    mutating func apply(_ operation: CacheOperation) {
        switch operation {
        case .set(let key, let value): root[key] = value
        case .remove(let key), .setNil(let key): root[key] = nil
        case .add(let key, let amount): root[key] = (root[key] ?? 0) + amount
        case .copyAndDiverge: break
        case .setEven(let key, let value):
            if key.isMultiple(of: 2) { root[key] = value } else { evensLocal[key] = value }
        case .removeEven(let key):
            if key.isMultiple(of: 2) { root[key] = nil } else { evensLocal[key] = nil }
        case .setNamed(let name, let value): writeNamed(name, value)
        case .removeNamed(let name): writeNamed(name, nil)
        case .addNested(let name, let amount):
            if Self.nestedNames.contains(name) {
                writeNamed(name, (namedValue(name) ?? 0) + amount)
            } else {
                nestedLocal[name] = (nestedLocal[name] ?? 0) + amount
            }
        }
    }

    private mutating func writeNamed(_ name: String, _ value: Int?) {
        if let key = Self.rootKey(name) { root[key] = value } else { namedLocal[name] = value }
    }

    private func namedValue(_ name: String) -> Int? {
        Self.rootKey(name).map { root[$0] } ?? namedLocal[name]
    }

    var evens: [Int: Int] {
        root.filter { $0.key.isMultiple(of: 2) }.merging(evensLocal) { _, local in local }
    }

    var named: [String: Int] {
        var result = namedLocal
        for (key, value) in root where key < 8 { result["k\(key)"] = value }
        return result
    }

    var nested: [String: Int] {
        named.filter { Self.nestedNames.contains($0.key) }.merging(nestedLocal) { _, local in local }
    }

    /// A description of the first view that disagrees with the model, or `nil`. Every visible key
    /// is checked, through `allValues` and through `get`.
    func firstMismatch(with views: CacheViews) -> String? {
        firstMismatch(
            root: views.root.allValues, evens: views.evens.allValues,
            named: views.named.allValues, nested: views.nested.allValues)
            ?? firstGetMismatch("root", views.root, root) ?? firstGetMismatch("evens", views.evens, evens)
            ?? firstGetMismatch("named", views.named, named) ?? firstGetMismatch("nested", views.nested, nested)
    }

    /// A description of the first of the views' values (as `allValues` gives them) that disagrees.
    func firstMismatch(root: [Int: Any], evens: [Int: Any], named: [String: Any], nested: [String: Any]) -> String? {
        Self.compare("root", root, self.root) ?? Self.compare("evens", evens, self.evens)
            ?? Self.compare("named", named, self.named) ?? Self.compare("nested", nested, self.nested)
    }

    private static func compare<Key: Hashable>(_ name: String, _ all: [Key: Any], _ expected: [Key: Int]) -> String? {
        let actual = all.compactMapValues { $0 as? Int }
        guard actual == expected, all.count == expected.count else {
            return "\(name) shows \(actual.sorted { "\($0.key)" < "\($1.key)" }), "
                + "the model \(expected.sorted { "\($0.key)" < "\($1.key)" })"
        }
        return nil
    }

    private func firstGetMismatch<Key: Hashable & SendableMetatype>(
        _ name: String, _ cache: CacheStore<Key>, _ expected: [Key: Int]
    ) -> String? {
        for (key, value) in expected where cache.get(key, as: Int.self) != value {
            return "\(name).get(\(key)) is \(String(describing: cache.get(key, as: Int.self))), the model \(value)"
        }
        return nil
    }
}
