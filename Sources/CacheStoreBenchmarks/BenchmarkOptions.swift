/// What the command line asks for: the whole table (optionally quick or tab-separated), or one case.
struct BenchmarkOptions {
    /// One case at one size, run once for a given number of operations (for instruction counting).
    struct SingleCase {
        var name: String
        var size = 10
        var operations = 10_000
    }

    var quick = false
    var tabSeparated = false
    var help = false
    var singleCase: SingleCase?

    static let usage = """
        usage: swift run -c release CacheStoreBenchmarks [--quick] [--tsv]
               swift run -c release CacheStoreBenchmarks --case NAME [--size N] [--operations K]
          --quick         fewer iterations: checks that every case runs, not how fast
          --tsv           tab-separated rows (case, size, ns_per_op, ratio) for scripts
          --case NAME     run only case NAME, once and without warm-up, and print one tab-separated
                          row (case, size, operations, ns_per_op); Benchmarks/callgrind.sh uses it.
                          NAME is one of: \(CaseCatalog.names.joined(separator: ", "))
          --size N        the store size for --case (default 10; effect-roundtrip is always 10)
          --operations K  the operations --case performs (default 10,000, but 1 for
                          teststore-send-dictionary; for effect-cancel, the effects it starts and
                          cancels, which is also its size)
        """

    /// The options in `arguments` (without the program name), or `nil` when they make no sense.
    init?(_ arguments: [String]) {
        var remaining = arguments[...]
        var single: SingleCase?
        var size: Int?
        var operations: Int?
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--tsv": tabSeparated = true
            case "--help": help = true
            case "--case":
                guard let name = remaining.popFirst() else { return nil }
                single = SingleCase(name: name)
            case "--size":
                guard let value = remaining.popFirst().flatMap(Int.init), value > 0 else { return nil }
                size = value
            case "--operations":
                guard let value = remaining.popFirst().flatMap(Int.init), value > 0 else { return nil }
                operations = value
            default: return nil
            }
        }
        if var single {
            guard !quick, !tabSeparated else { return nil }
            single.size = size ?? single.size
            // One send of a large dictionary takes milliseconds to seconds.
            single.operations = operations ?? (single.name == "teststore-send-dictionary" ? 1 : single.operations)
            singleCase = single
        } else if size != nil || operations != nil {
            return nil
        }
    }
}
