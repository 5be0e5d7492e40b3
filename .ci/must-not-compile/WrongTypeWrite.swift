// A typed key's write is its value type: writing another type does not compile.
// expect: cannot assign value of type 'String' to subscript of type 'Int'
import CacheStore

enum SettingsKey: Hashable, Sendable { case fontSize }

extension TypedKey<SettingsKey, Int> {
    static var fontSize: Self { .init(.fontSize, default: 14) }
}

func enlarge(_ settings: CacheStore<SettingsKey>) {
    settings[.fontSize] = "large"
}
