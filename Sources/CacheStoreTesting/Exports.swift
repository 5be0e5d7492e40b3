@_exported import CacheStore
