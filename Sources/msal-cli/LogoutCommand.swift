import Foundation
import MSAL
import MSALKernelKeyring
import MSALSecretService

/// `msal logout`: signs an account out of the app (its tokens removed from the cache).
enum LogoutCommand {
    static let command = ToolCommand(
        name: "logout", summary: "sign an account out (remove its tokens from the cache)",
        help: """
            usage: msal logout [--account ID_OR_USERNAME] [--wipe] --client-id ID [--cache FILE]
                   msal logout --all [--cache FILE]

            Signs the account out of the app: its tokens for this client id are removed and it no
            longer appears in `msal accounts`; `msal token` then needs `msal login` again. Other apps
            sharing the cache keep their tokens unless --wipe is given. The browser session is not
            ended. Fails (exit 1) when no signed-in account matches. Prints nothing on standard
            output; "Signed out ..." goes to standard error.

            Options:
              --account ID_OR_USERNAME
                                 the account's identifier or user name; by default the only account
                                 signed in, or the default one (`msal accounts --set-default`)
              --wipe             remove the account and its tokens for every app sharing the cache
              --all              remove the whole token cache: the cache file (every account of
                                 every app sharing it), the key msal keeps for it in a keyring,
                                 and msal's defaults beside it (no --client-id needed)

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(
            .init(valueOptions: ["account"], flagOptions: ["wipe", "all"])),
        run: run)

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        if arguments.flag("all") { return try removeAll(arguments, environment) }
        let options = try ApplicationOptions(arguments, environment: environment)
        let application = try options.makeApplication()
        let account: MSALAccount
        if let name = arguments.values["account"] {
            guard let named = try ApplicationOptions.account(name, in: application) else {
                throw CommandFailure(message: "no signed-in account matches '\(name)'", code: .failure)
            }
            account = named
        } else {
            do {
                account = try options.unnamedAccount(in: application)
            } catch let failure as CommandFailure {
                throw CommandFailure(message: failure.message, code: .failure)
            }
        }
        let parameters = MSALSignoutParameters()
        parameters.wipeAccount = arguments.flag("wipe")
        try await application.signout(with: account, signoutParameters: parameters)
        if let identifier = account.identifier,
            DefaultAccount.identifier(clientId: options.clientId, file: options.defaultsFile) == identifier
        {
            try DefaultAccount.set(nil, clientId: options.clientId, file: options.defaultsFile)
        }
        Console.error("Signed out \(account.username ?? account.identifier ?? "the account")")
        return .success
    }

    /// `msal logout --all`: the cache file, then the keys msal may have kept for it (the store it
    /// used last must succeed; the others are tried quietly), then the defaults file.
    static func removeAll(_ arguments: CommandLineArguments, _ environment: [String: String]) throws -> ExitCode {
        for name in ["account", "wipe"] where arguments.values[name] != nil || arguments.flag(name) {
            throw CommandLineArguments.UsageError(description: "--all removes every account; --\(name) is not needed")
        }
        let cacheFile = arguments.value("cache", environment: environment, variable: "MSAL_CACHE")
        let cache =
            cacheFile.map { URL(fileURLWithPath: $0) }
            ?? MSALCacheConfig.defaultCacheFileURL(keychainSharingGroup: MSALCacheConfig.defaultKeychainSharingGroup)
        let defaultsFile = DefaultAccount.file(cacheFile: cacheFile, environment: environment)
        var removed: [String] = []
        switch CacheBackendSelection.kind(of: cache.path) {
        case nil: break
        case .typeRegular?:
            do {
                try FileManager.default.removeItem(at: cache)
            } catch {
                throw CommandFailure(
                    message: "the token cache \(cache.path) could not be removed (\(error.localizedDescription)); "
                        + "nothing was changed", code: .failure)
            }
            removed.append("the token cache \(cache.path)")
        default:
            // A link or anything else: what it points to may be another program's; never followed.
            throw CommandFailure(
                message: "the token cache \(cache.path) is not a regular file; nothing was removed", code: .failure)
        }
        let previous = DefaultAccount.read(defaultsFile).cacheBackend.flatMap(CacheBackend.init)
        let stores = CacheBackendStores(cachePath: cache.path, environment: environment)
        var failures: [String] = []
        for backend in [CacheBackend.secretService, .kernelKeyring] {
            if backend == .secretService, stores.sessionBus == nil {
                if previous == backend {
                    failures.append("its key in \(backend.words): \(CacheBackendStores.noBusReason)")
                }
                continue
            }
            do {
                let found =
                    backend == .secretService
                    ? try stores.secretService.removeKey() : try stores.kernelKeyring.removeKey()
                if found { removed.append("its key in \(backend.words)") }
            } catch  where previous == backend {
                failures.append("its key in \(backend.words): \(CacheBackendStores.describe(error))")
            } catch {
                // A store msal did not use for this cache (its library missing, say): no key there.
            }
        }
        if FileManager.default.fileExists(atPath: defaultsFile.path) {
            try? FileManager.default.removeItem(at: defaultsFile)
            removed.append("msal's defaults \(defaultsFile.path)")
        }
        if previous == .systemdCredential {
            Console.error("msal: the systemd credential msal-cache-key is the service's; msal leaves it")
        }
        Console.error(
            removed.isEmpty
                ? "Nothing to remove: no token cache at \(cache.path)" : "Removed " + removed.joined(separator: ", "))
        guard failures.isEmpty else {
            throw CommandFailure(message: "could not remove " + failures.joined(separator: "; "), code: .failure)
        }
        return .success
    }
}
