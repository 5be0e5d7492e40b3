// A typed key's read is its value type: reading it as another type does not compile.
// expect: cannot convert value of type 'Int' to specified type 'String'
import CacheStore

enum SettingsKey: Hashable, Sendable { case fontSize }

extension TypedKey<SettingsKey, Int> {
    static var fontSize: Self { .init(.fontSize, default: 14) }
}

let settings = CacheStore<SettingsKey>(initialValues: [:])
let name: String = settings[.fontSize]
