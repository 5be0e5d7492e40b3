import CacheStoreTesting
import Foundation

// The random effect programs of the differential suite (DifferentialTests.swift): one seed, one
// program, the same handler for a `Store` and a `TestStore`.

/// A small, fast, seeded random number generator (SplitMix64), so a program is made again exactly
/// from its seed (the same generator as CacheStoreTests' model-based suites).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The key of a program's store: its handler changes no state, only the order of actions matters.
enum ProgramKey: Hashable, Sendable {
    case unused
}

/// An action of an effect program.
enum ProgramAction: Hashable, Sendable, CustomStringConvertible {
    /// The test sends it at the program's `step`th step.
    case start(Int)
    /// Action `label` of the program, delivered by the one effect site that makes it, after `maps`
    /// `map`s on its way (each `map` of the program adds one).
    case act(Int, maps: Int)

    /// The action through one more `map`.
    var mapped: ProgramAction {
        switch self {
        case .start: self
        case .act(let label, let maps): .act(label, maps: maps + 1)
        }
    }

    var description: String {
        switch self {
        case .start(let step): "start\(step)"
        case .act(let label, let maps): "a\(label)" + String(repeating: "'", count: maps)
        }
    }
}

/// One sleep of a `run` effect, then the action it sends.
struct RunSend: Sendable {
    /// The sleep's site: its duration is the program's `durations[sleep]`.
    let sleep: Int
    let action: Int
}

/// An effect of a program, as data: ``EffectProgram/effect(_:_:)`` makes the `ActionEffect`.
///
/// Every sleep on the clock (a single effect's, a `run`'s, a debounce's or a throttle's wait) has a
/// site of its own, whose duration no other site has.
indirect enum EffectNode: Sendable {
    /// `ActionEffect(id:)`: sleeps for its site's duration, then returns `.act(action)`, even when
    /// cancelled (the engine must drop it).
    case single(id: String?, sleep: Int, action: Int)
    /// `.run(id:)`: for each send, sleeps, then sends its action; a cancelled sleep still sends
    /// (dropped by the engine) and ends the run.
    case run(id: String?, sends: [RunSend])
    /// `ActionEffect(.act(action))`.
    case immediate(action: Int)
    /// `.cancel(id:)`.
    case cancel(id: String)
    case merge([EffectNode])
    case concatenate(id: String?, [EffectNode])
    /// `map`, adding one to each action's `maps`.
    case map(EffectNode)
    /// `debounce(id:for:clock:)` for the duration of site `wait`.
    case debounce(id: String, wait: Int, EffectNode)
    /// `throttle(id:for:clock:latest:)` for the duration of site `wait`.
    case throttle(id: String, wait: Int, latest: Bool, EffectNode)
}

/// What a program's handler gets: the clock its effects sleep on, and the probe that sees them run.
struct ProgramDependency: Sendable {
    let clock: TestClock
    let probe: BodyProbe
}

/// Counts what the program's effect bodies do, for the app side's wait for rest: how many run now
/// (begun, not ended, not in a sleep), and how many steps they took in all.
final class BodyProbe: Sendable {
    struct Counts: Equatable {
        /// Bodies running now: begun and not ended, and not in a sleep.
        var active = 0
        /// Every begin, sleep, wake and end so far.
        var events = 0
    }

    let counts = Locked(Counts())

    func begin() { step(+1) }
    func willSleep() { step(-1) }
    func woke() { step(+1) }
    func end() { step(-1) }

    private func step(_ change: Int) {
        counts.withLock { counts in
            counts.active += change
            counts.events += 1
        }
    }
}

/// The actions a handler saw, in the order it saw them.
final class ActionLog: Sendable {
    private let log = Locked<[ProgramAction]>([])

    func append(_ action: ProgramAction) {
        log.withLock { $0.append(action) }
    }

    var actions: [ProgramAction] {
        log.withLock { $0 }
    }

    var count: Int {
        log.withLock { $0.count }
    }
}

/// A random effect program: what each action's handler returns, which steps the test takes when
/// (sends of `.start`, cancels), and how long each sleep site sleeps.
///
/// **No two wakes at one instant.** Every duration (of a sleep site, and of each step's time after
/// zero) is a distinct power of two milliseconds. Each site runs at most once (each action label is
/// made by one site, and each step is taken once), so every instant at which something happens is
/// the sum of a set of those powers (the durations on its chain of cause), and two effects asleep at
/// once have different sets, so different deadlines. The app side checks it all the same: a tie
/// fails the run as an error of the generator.
struct EffectProgram: Sendable, CustomStringConvertible {
    /// A step the test takes at `at`: sends `.start(step)`, whose handler returns `effect`, or
    /// cancels an id with the store's `cancel(id:)`.
    struct Step: Sendable {
        enum Kind: Sendable {
            case send(EffectNode?)
            case cancel(String)
        }

        let at: Duration
        let kind: Kind
    }

    let seed: UInt64
    /// The test's steps, in order of time (some at the same instant).
    let steps: [Step]
    /// The effect the handler returns for `.act(label)`, by label; none for the others.
    let reactions: [Int: EffectNode]
    /// The duration of each sleep site.
    let durations: [Duration]

    /// The handler: logs each action into `log`, then returns its effect.
    func handler(logging log: ActionLog) -> StoreActionHandler<ProgramKey, ProgramAction, ProgramDependency> {
        StoreActionHandler { _, action, dependency in
            log.append(action)
            let node: EffectNode? =
                switch action {
                case .start(let step):
                    if case .send(let effect) = steps[step].kind { effect } else { nil }
                case .act(let label, _):
                    reactions[label]
                }
            return node.map { effect($0, dependency) }
        }
    }

    /// The `ActionEffect` `node` describes.
    func effect(_ node: EffectNode, _ dependency: ProgramDependency) -> ActionEffect<ProgramAction> {
        let (clock, probe) = (dependency.clock, dependency.probe)
        switch node {
        case .single(let id, let sleep, let action):
            let duration = durations[sleep]
            return ActionEffect(id: id.map(AnyHashable.init)) {
                probe.begin()
                defer { probe.end() }
                probe.willSleep()
                try? await clock.sleep(for: duration)
                probe.woke()
                return .act(action, maps: 0)
            }
        case .run(let id, let sends):
            let sends = sends.map { (durations[$0.sleep], ProgramAction.act($0.action, maps: 0)) }
            return .run(id: id.map(AnyHashable.init)) { send in
                probe.begin()
                defer { probe.end() }
                for (duration, action) in sends {
                    probe.willSleep()
                    let slept = (try? await clock.sleep(for: duration)) != nil
                    probe.woke()
                    await send(action)
                    if !slept { return }
                }
            }
        case .immediate(let action):
            return ActionEffect(.act(action, maps: 0))
        case .cancel(let id):
            return .cancel(id: id)
        case .merge(let parts):
            return .merge(parts.map { effect($0, dependency) })
        case .concatenate(let id, let parts):
            return .concatenate(id: id.map(AnyHashable.init), parts.map { effect($0, dependency) })
        case .map(let inner):
            return effect(inner, dependency).map(\.mapped)
        case .debounce(let id, let wait, let inner):
            return effect(inner, dependency).debounce(id: id, for: durations[wait], clock: clock)
        case .throttle(let id, let wait, let latest, let inner):
            return effect(inner, dependency).throttle(id: id, for: durations[wait], clock: clock, latest: latest)
        }
    }

    var description: String {
        var lines: [String] = []
        for (index, step) in steps.enumerated() {
            switch step.kind {
            case .send(let effect):
                lines.append("at \(millisecondsText(step.at)): start\(index) -> \(effect.map(describe) ?? "none")")
            case .cancel(let id):
                lines.append("at \(millisecondsText(step.at)): store.cancel(id: \(id))")
            }
        }
        for label in reactions.keys.sorted() {
            lines.append("a\(label) -> \(describe(reactions[label]!))")
        }
        return lines.joined(separator: "\n")
    }

    /// One line for `node`.
    func describe(_ node: EffectNode) -> String {
        func id(_ id: String?) -> String { id ?? "nil" }
        switch node {
        case .single(let effectID, let sleep, let action):
            return "single(id: \(id(effectID)), \(millisecondsText(durations[sleep])) -> a\(action))"
        case .run(let effectID, let sends):
            let list = sends.map { "\(millisecondsText(durations[$0.sleep])) -> a\($0.action)" }
            return "run(id: \(id(effectID)), \(list.joined(separator: ", ")))"
        case .immediate(let action):
            return "immediate(a\(action))"
        case .cancel(let effectID):
            return "cancel(id: \(effectID))"
        case .merge(let parts):
            return "merge(\(parts.map(describe).joined(separator: ", ")))"
        case .concatenate(let effectID, let parts):
            return "concatenate(id: \(id(effectID)), \(parts.map(describe).joined(separator: ", ")))"
        case .map(let inner):
            return "map(\(describe(inner)))"
        case .debounce(let effectID, let wait, let inner):
            return "debounce(id: \(effectID), \(millisecondsText(durations[wait])), \(describe(inner)))"
        case .throttle(let effectID, let wait, let latest, let inner):
            return
                "throttle(id: \(effectID), \(millisecondsText(durations[wait])), latest: \(latest), \(describe(inner)))"
        }
    }

    /// The same program with the durations of two sleep sites swapped: still a program whose wakes
    /// never tie, and often one with another order.
    func swappingDurations(_ first: Int, _ second: Int) -> EffectProgram {
        var durations = durations
        durations.swapAt(first, second)
        return EffectProgram(seed: seed, steps: steps, reactions: reactions, durations: durations)
    }
}

/// `duration` as a whole number of milliseconds: `12ms`.
func millisecondsText(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
}

extension EffectProgram {
    /// The program of `seed`.
    init(seed: UInt64) {
        var generator = ProgramGenerator(random: SeededGenerator(seed: seed))
        let stepCount = Int.random(in: 1...5, using: &generator.random)
        var kinds: [Step.Kind] = []
        // Whether a step shares its time with the step before it: no clock advance between them.
        var isAtPreviousTime: [Bool] = []
        for index in 0..<stepCount {
            isAtPreviousTime.append(index > 0 && generator.random.chance(0.15))
            if index > 0, generator.random.chance(0.15) {
                kinds.append(.cancel(generator.id()))
            } else {
                kinds.append(.send(generator.random.chance(0.9) ? generator.node(nesting: 0, depth: 0) : nil))
            }
        }
        // Every duration a distinct power of two: the steps' times after zero take some of them, in
        // increasing order; the sites take the others.
        let timeCount = isAtPreviousTime.dropFirst().filter { !$0 }.count
        var exponents = Array(0..<(generator.siteCount + timeCount)).shuffled(using: &generator.random)
        var times = exponents.prefix(timeCount).sorted().map { Duration.milliseconds(1 << $0) }[...]
        exponents.removeFirst(timeCount)
        var at = Duration.zero
        var steps: [Step] = []
        for (kind, isAtPrevious) in zip(kinds, isAtPreviousTime) {
            if !steps.isEmpty, !isAtPrevious { at = times.removeFirst() }
            steps.append(Step(at: at, kind: kind))
        }
        self.init(
            seed: seed, steps: steps, reactions: generator.reactions,
            durations: exponents.map { .milliseconds(1 << $0) })
    }
}

/// Makes a program's effects: small trees of every kind of effect, ids from a pool of three or four
/// (so effects replace and cancel each other), and actions whose handlers return more effects, two
/// or three levels deep at most.
private struct ProgramGenerator {
    var random: SeededGenerator
    var siteCount = 0
    var actionCount = 0
    /// How many more effect nodes the program may have.
    var budget = 40
    var reactions: [Int: EffectNode] = [:]
    let ids: [String]
    let maximumDepth: Int
    let maximumNesting = 3

    init(random: SeededGenerator) {
        self.random = random
        ids = Array(["A", "B", "C", "D"].prefix(Int.random(in: 3...4, using: &self.random)))
        maximumDepth = Int.random(in: 2...3, using: &self.random)
    }

    /// A new sleep site.
    mutating func site() -> Int {
        defer { siteCount += 1 }
        return siteCount
    }

    /// A new action label, made at reaction depth `depth`; its handler may return an effect.
    mutating func action(depth: Int) -> Int {
        let label = actionCount
        actionCount += 1
        if depth < maximumDepth, budget > 0, random.chance(0.4) {
            reactions[label] = node(nesting: 0, depth: depth + 1)
        }
        return label
    }

    mutating func id() -> String {
        ids.randomElement(using: &random)!
    }

    mutating func optionalID() -> String? {
        random.chance(0.35) ? nil : id()
    }

    /// A random effect tree, `nesting` levels down a tree returned at reaction depth `depth`.
    mutating func node(nesting: Int, depth: Int) -> EffectNode {
        budget -= 1
        if nesting < maximumNesting, budget > 0, random.chance(0.6 - 0.1 * Double(nesting)) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                let count = Int.random(in: 2...3, using: &random)
                return .merge((0..<count).map { _ in node(nesting: nesting + 1, depth: depth) })
            case 1:
                let id = optionalID()
                let count = Int.random(in: 1...3, using: &random)
                return .concatenate(id: id, (0..<count).map { _ in node(nesting: nesting + 1, depth: depth) })
            case 2:
                return .map(node(nesting: nesting + 1, depth: depth))
            case 3:
                let (id, wait) = (id(), site())
                return .debounce(id: id, wait: wait, node(nesting: nesting + 1, depth: depth))
            default:
                let (id, wait, latest) = (id(), site(), random.chance(0.5))
                return .throttle(id: id, wait: wait, latest: latest, node(nesting: nesting + 1, depth: depth))
            }
        }
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<7:
            let (id, sleep) = (optionalID(), site())
            return .single(id: id, sleep: sleep, action: action(depth: depth))
        case 7..<12:
            let id = optionalID()
            let count = Int.random(in: 1...4, using: &random)
            var sends: [RunSend] = []
            for _ in 0..<count {
                let sleep = site()
                sends.append(RunSend(sleep: sleep, action: action(depth: depth)))
            }
            return .run(id: id, sends: sends)
        case 12..<16:
            return .immediate(action: action(depth: depth))
        default:
            return .cancel(id: id())
        }
    }
}

extension RandomNumberGenerator {
    /// `true` with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
