// swift-tools-version:6.0
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode (the tools default) with strict
/// concurrency, and imports that must be declared to be used.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-msal",
    products: [
        .library(name: "MSAL", targets: ["MSAL"]),
        .library(name: "MSALTestSupport", targets: ["MSALTestSupport"]),
        // The cache key in the Linux kernel keyring (libkeyutils); the core never links it.
        .library(name: "MSALKernelKeyring", targets: ["MSALKernelKeyring"]),
        // The cache key in the desktop keyring over D-Bus (libsecret); the core never links it.
        .library(name: "MSALSecretService", targets: ["MSALSecretService"]),
        // The token cache in Redis, shared by several machines (no C library of its own).
        .library(name: "MSALRedisCache", targets: ["MSALRedisCache"]),
        // Sign-in through the Microsoft identity broker of Linux desktops over D-Bus (sd-bus of
        // libsystemd, opened at run time); the core never links it.
        .library(name: "MSALBroker", targets: ["MSALBroker"]),
        .executable(name: "msal", targets: ["msal-cli"]),
        .executable(name: "msal-emulator", targets: ["msal-emulator"]),
        // msal-bench is no product: benchmarks are for this repository only, where SwiftPM still
        // builds and runs it by its target name (`swift run -c release msal-bench`).
    ],
    targets: [
        // C: libcurl, opened with dlopen on the first request (a process that only reads its cache
        // never maps it), behind typed functions (curl_easy_setopt and curl_easy_getinfo are
        // variadic). Builds with libcurl's headers (Debian: libcurl4-openssl-dev); links no libcurl.
        .target(name: "CMSALCurl"),
        // C: shims over OpenSSL 3 (macros, parameter names with C lifetime).
        .systemLibrary(
            name: "CMSALOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // The only Swift target that touches C. Not a product; its API is `package`.
        .target(
            name: "MSALNative",
            dependencies: ["CMSALCurl", "CMSALOpenSSL"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSAL",
            dependencies: ["MSALNative"],
            swiftSettings: strictSettings
        ),
        // C: the kernel key retention service, for the MSALKernelKeyring product: libkeyutils opened
        // with dlopen when a key store first needs it (a program linking the product still starts
        // where it is missing). Builds with keyutils.h (Debian: libkeyutils-dev); links no libkeyutils.
        .target(name: "CMSALKeyutils"),
        // The only Swift code of MSALKernelKeyring that touches C. Not a product.
        .target(
            name: "MSALKernelKeyringNative",
            dependencies: ["CMSALKeyutils"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSALKernelKeyring",
            dependencies: ["MSAL", "MSALKernelKeyringNative"],
            swiftSettings: strictSettings
        ),
        // C: the Secret Service over D-Bus, for MSALSecretService: libsecret and the GLib, GObject
        // and GIO functions it needs, opened with dlopen when a store first needs them (a program
        // linking the product still starts where they are missing). Needs no header; links none.
        .target(name: "CMSALLibsecret"),
        // The only Swift code of MSALSecretService that touches C. Not a product.
        .target(
            name: "MSALSecretServiceNative",
            dependencies: ["CMSALLibsecret"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSALSecretService",
            dependencies: ["MSAL", "MSALNative", "MSALSecretServiceNative"],
            swiftSettings: strictSettings
        ),
        // C: D-Bus through sd-bus of libsystemd, for MSALBroker and the emulated broker of
        // MSALTestSupport: libsystemd.so.0 opened with dlopen by the first broker call (a program
        // linking the product still starts where it is missing). Needs no header; links none.
        .target(name: "CMSALBrokerBus"),
        // The only Swift code of MSALBroker (and of the emulated broker) that touches C. Not a product.
        .target(
            name: "MSALBrokerNative",
            dependencies: ["CMSALBrokerBus"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSALBroker",
            dependencies: ["MSAL", "MSALBrokerNative"],
            swiftSettings: strictSettings
        ),
        // The only Swift code of MSALRedisCache that touches C: sockets with deadlines, TLS through
        // MSALNative; and the Redis protocol (command formatting, a bounded reply parser). Not a
        // product.
        .target(
            name: "MSALRedisCacheNative",
            dependencies: ["MSALNative"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSALRedisCache",
            dependencies: ["MSAL", "MSALRedisCacheNative", "MSALNative"],
            swiftSettings: strictSettings
        ),
        // The only Swift code of MSALTestSupport that touches C beyond MSALNative: key pairs, JWS
        // signing and X.509 certificate issuing, which the library itself never does (it only
        // verifies). Not a product; only MSALTestSupport and tests depend on it.
        .target(
            name: "MSALTestSupportNative",
            dependencies: ["CMSALOpenSSL", "MSALNative"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MSALTestSupport",
            dependencies: ["MSAL", "MSALNative", "MSALTestSupportNative", "MSALBrokerNative"],
            swiftSettings: strictSettings
        ),
        // A token cache file of MSAL for Python's shape with realistic token sizes, for msal-bench's
        // cache scenarios and the cache tests. Not a product: no shipped target depends on it.
        .target(
            name: "MSALCacheFixtures",
            swiftSettings: strictSettings
        ),
        // The only Swift code of msal-bench that touches C: peak memory, thread CPU time, CPU
        // pinning, flushing a file to the disk. Not a product: no shipped target depends on it.
        .target(
            name: "MSALBenchNative",
            dependencies: ["MSALNative"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msal-bench",
            dependencies: [
                "MSAL", "MSALNative", "MSALBenchNative", "MSALCacheFixtures", "MSALTestSupport", "MSALRedisCache",
                "MSALRedisCacheNative",
            ],
            swiftSettings: strictSettings
        ),
        // A standalone Entra emulator: start, print URLs and the CA path, stop on a signal.
        .executableTarget(
            name: "msal-emulator",
            dependencies: ["MSALTestSupport"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msal-cli",
            dependencies: [
                "MSAL", "MSALNative", "MSALTestSupport", "MSALKernelKeyring", "MSALSecretService", "MSALBroker",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALCLITests",
            dependencies: ["msal-cli", "MSAL", "MSALKernelKeyring", "MSALTestSupport"],
            swiftSettings: strictSettings
        ),
        // The Swift samples of MSAL's documentation (../shared/seeds), changed only where Linux has
        // no UIKit: they must compile against our module.
        .testTarget(
            name: "MSALSeedSamplesTests",
            dependencies: ["MSAL", "MSALTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALNativeTests",
            dependencies: ["MSALNative", "MSALTestSupportNative"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALTests",
            dependencies: ["MSAL", "MSALNative", "MSALTestSupport", "MSALTestSupportNative", "MSALCacheFixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALKernelKeyringTests",
            dependencies: ["MSALKernelKeyring", "MSALKernelKeyringNative", "MSAL"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALSecretServiceTests",
            dependencies: ["MSALSecretService", "MSALSecretServiceNative", "MSAL"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALRedisCacheTests",
            dependencies: ["MSALRedisCache", "MSALRedisCacheNative", "MSAL", "MSALNative", "MSALTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALBrokerTests",
            dependencies: ["MSALBroker", "MSALBrokerNative", "MSAL", "MSALTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MSALIntegrationTests",
            dependencies: ["MSAL", "MSALNative", "MSALTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)

// libFuzzer targets (Fuzz/, built and run by scripts/fuzz.sh), declared only when MSAL_FUZZ=1:
// they have no `main` (libFuzzer's comes with `--sanitize=fuzzer`), so a plain `swift build`
// could not link them.
if Context.environment["MSAL_FUZZ"] == "1" {
    let fuzzed: [(name: String, module: Target.Dependency)] =
        ["JWT", "TokenResponse", "Cache", "Redirect", "Authority", "Discovery", "JSON", "Challenge", "BrokerReply"]
        .map { ($0, "MSAL") }
        + [("RedisReply", "MSALRedisCacheNative")]
    for (name, module) in fuzzed {
        package.targets.append(
            .executableTarget(
                name: "Fuzz\(name)",
                dependencies: [module],
                path: "Fuzz/Targets/\(name)",
                swiftSettings: strictSettings
            )
        )
    }
}
