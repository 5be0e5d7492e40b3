// A typed key's write is its value type: writing another type does not compile.
// expect: cannot assign value of type 'String' to subscript of type 'Int'
import CacheStore

enum SettingsKey: Hashable, Sendable { case fontSize }

extension TypedKey where Key == SettingsKey {
    static var fontSize: TypedKey<SettingsKey, Int> { .init(.fontSize, default: 14) }
}

let settings = CacheStore<SettingsKey>(initialValues: [:])
settings[.fontSize] = "large"
