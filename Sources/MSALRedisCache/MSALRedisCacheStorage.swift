public import Foundation
public import MSAL
import MSALNative
import MSALRedisCacheNative

/// A token cache in Redis, shared by several machines (build agents, bots, gateways, replicas of
/// a service) that act for the same signed-in users. Set it on
/// ``/MSAL/MSALCacheConfig/customStorage``:
///
/// ```swift
/// let redis = MSALRedisConnectionConfig(host: "127.0.0.1", port: 6379)
/// config.cacheConfig.customStorage = try MSALRedisCacheStorage(connection: redis, cacheName: "build-agents")
/// ```
///
/// - The cache document (MSAL Python's format, encrypted with
///   ``/MSAL/MSALCacheConfig/encryptionKey`` when set) is one Redis hash with a version. Saves are
///   compare-and-set on that version (one Lua script), so a machine never overwrites another
///   machine's write: the library applies its change again to the newer document.
/// - Reads are served from memory after asking Redis for the version (one small round trip), or
///   without asking for ``readStaleness`` seconds when set.
/// - One refresh per token across the fleet: a lease (`SET NX PX`, released by compare-and-delete)
///   taken before a refresh token is redeemed; a holder that dies lets it expire after
///   ``refreshLeaseDuration``, and a holder whose lease expired before it saved is fenced.
/// - The document expires from Redis after ``documentTimeToLive`` without a save, and accounts
///   nothing was acquired for in ``unusedAccountLifetime`` leave it with the next save.
///
/// Failures are `MSALErrorDomain` errors with an ``MSALRedisCacheError`` code; nothing blocks
/// longer than ``MSALRedisConnectionConfig/timeout`` per round trip.
public final class MSALRedisCacheStorage: MSALCacheRefreshCoordinating {
    /// The connection settings.
    public let connection: MSALRedisConnectionConfig
    /// The name shared by the machines of one cache; the Redis keys start with `msal:{name}:`.
    public let cacheName: String
    /// `redis:` and the cache name: an encrypted document is bound to it, so one copied from
    /// another cache name (or another fleet's Redis) does not decrypt here.
    public var cacheIdentity: String { "redis:\(cacheName)" }
    /// Seconds a read may be served from memory without asking Redis for the version (0, the
    /// default: ask before every read).
    public let readStaleness: TimeInterval
    /// Seconds a refresh lease lasts when its holder neither releases it nor saves (a holder that
    /// died); the other machines wait at most this long. The default is 30.
    public let refreshLeaseDuration: TimeInterval
    /// Seconds the document stays in Redis after its last save; 0 keeps it forever. The default
    /// is 90 days, the longest a Microsoft Entra refresh token stays valid unused: after that
    /// nothing in it can be redeemed.
    public let documentTimeToLive: TimeInterval
    /// Seconds after which an account nothing was acquired for is removed from the cache by the
    /// next change any machine saves (see ``/MSAL/MSALSharedCacheStorage/unusedAccountLifetime``);
    /// 0 keeps accounts until they are removed. The default is 90 days, as long as Microsoft
    /// Entra keeps an unused refresh token: the cache of a fleet whose users come and go stays
    /// bounded while it is in use.
    public let unusedAccountLifetime: TimeInterval

    private let pool: RedisConnectionPool
    private let documentKey: String
    private let turnKey: String
    /// This storage's run of conflicts and the write turn it holds (``RedisWriteTurn``).
    private let turn = Locked(RedisWriteTurn())

    /// A storage in the Redis server of `connection`, under the keys of `cacheName`. Connects
    /// lazily: a wrong host or password shows at the first token or account call.
    ///
    /// - Throws: an ``MSALRedisCacheError/tlsFailed`` error when ``MSALRedisConnectionConfig/tlsCAFile``
    ///   cannot be read or holds no certificate.
    public init(
        connection: MSALRedisConnectionConfig, cacheName: String, readStaleness: TimeInterval = 0,
        refreshLeaseDuration: TimeInterval = 30, documentTimeToLive: TimeInterval = 90 * 86_400,
        unusedAccountLifetime: TimeInterval = 90 * 86_400
    ) throws {
        self.connection = connection
        self.cacheName = cacheName
        self.readStaleness = max(0, readStaleness)
        self.refreshLeaseDuration = max(0.001, refreshLeaseDuration)
        self.documentTimeToLive = max(0, documentTimeToLive)
        self.unusedAccountLifetime = unusedAccountLifetime.isFinite ? max(0, unusedAccountLifetime) : 0
        documentKey = "msal:{\(cacheName)}:doc"
        turnKey = "msal:{\(cacheName)}:turn"
        let endpoint = RedisEndpoint(
            host: connection.host, port: connection.port, tlsCAFile: connection.tlsCAFile,
            tlsServerName: connection.tlsServerName, username: connection.username, password: connection.password,
            timeout: connection.timeout, maximumReplyBytes: connection.maximumReplyBytes)
        do {
            pool = try RedisConnectionPool(endpoint)
        } catch {
            throw MSALRedisCacheError.error(error)
        }
    }

    // MARK: MSALSharedCacheStorage

    /// The stored document and its version.
    public func loadVersioned() throws -> MSALSharedCacheDocument {
        let reply = try run(["HMGET", documentKey, "v", "d"])
        guard case .array(let fields) = reply, fields.count == 2 else { throw unexpected(reply, "HMGET") }
        switch (fields[0], fields[1]) {
        case (.null, _): return MSALSharedCacheDocument(data: nil, version: 0)
        case (.bulk(let version), .bulk(let data)):
            guard let number = Self.version(version) else { throw unexpected(reply, "HMGET") }
            return MSALSharedCacheDocument(data: Data(data), version: number)
        default: throw unexpected(reply, "HMGET")
        }
    }

    /// The stored version (0 when nothing is stored).
    public func storedVersion() throws -> UInt64 {
        let reply = try run(["HGET", documentKey, "v"])
        switch reply {
        case .null: return 0
        case .bulk(let bytes):
            guard let number = Self.version(bytes) else { throw unexpected(reply, "HGET") }
            return number
        default: throw unexpected(reply, "HGET")
        }
    }

    /// Stores `data` if the stored version is `expected` (and, with `lease`, while the lease is
    /// held), and sets the document's expiry.
    ///
    /// A storage whose saves keep meeting newer versions takes the *write turn*: while it holds
    /// it, other machines' saves are refused as conflicts, so its next attempt succeeds; a machine
    /// refused so answers a conflict at once (it never waits here) and asks for the turn at its
    /// next attempt. Without turns, a machine whose change takes longer to make than others' can
    /// lose every race until it gives up.
    public func save(_ data: Data, replacingVersion expected: UInt64, lease: MSALCacheRefreshLease?) throws
        -> MSALCacheSaveOutcome
    {
        // When a storage asks for the turn and how it gives it back: RedisWriteTurn.
        var held = turn.withLock { $0.token }
        if turn.withLock({ $0.wantsTurn }) { held = try takeTurn() }
        // A new document starts at a random version, so that after Redis lost its data (a restart
        // without persistence) a machine's old version number cannot match a different document.
        let start = UInt64.random(in: 1..<(1 << 40))
        let ttl = Int64((documentTimeToLive * 1000).rounded())
        let arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.compareAndSet.utf8), Array("3".utf8), Array(documentKey.utf8),
            Array((lease.map { leaseKey($0.key) } ?? documentKey).utf8), Array(turnKey.utf8),
            Array(String(expected).utf8), Array(data), Array(String(start).utf8), Array((lease?.token ?? "").utf8),
            Array(String(ttl).utf8), Array((held ?? "").utf8),
        ]
        let reply = try run(arguments)
        guard case .array(let parts) = reply, parts.count == 2, case .integer(let status) = parts[0],
            case .integer(let version) = parts[1]
        else { throw unexpected(reply, "EVAL") }
        let answer: RedisWriteTurn.Answer
        switch status {
        case 1: answer = .saved(version: UInt64(max(0, version)))
        case 2: answer = .fenced
        case 3: answer = .turnHeldByAnother
        default: answer = .conflict
        }
        // The script gave the turn back with a save; a fenced change ends, so it gives it back too.
        if answer == .fenced, let held { try? releaseTurn(held) }
        turn.withLock { $0.record(answer) }
        // Refused while another machine has its turn: a conflict, never a wait here (this call
        // runs under the cache's lock). The library pauses outside it and tries again; with
        // `wantsTurn` the next attempt first asks for the turn, which is free once the holder
        // saved (or Redis expired it).
        return answer.outcome
    }

    /// Takes the write turn (`SET NX PX`), or `nil` when another machine holds it.
    private func takeTurn() throws -> String? {
        let token = UUID().uuidString
        let reply = try run([
            "SET", turnKey, token, "NX", "PX", String(RedisWriteTurn.durationMilliseconds),
        ])
        switch reply {
        case .status:
            turn.withLock { $0.token = token }
            return token
        case .null: return nil
        default: throw unexpected(reply, "SET")
        }
    }

    private func releaseTurn(_ token: String) throws {
        _ = try run(["EVAL", RedisScripts.compareAndDelete, "1", turnKey, token])
    }

    // MARK: MSALCacheStorage (for other programs; the library uses the versioned calls)

    /// The stored document.
    public func load() throws -> Data? {
        try loadVersioned().data
    }

    /// Replaces the stored document, whatever its version (up to 100 compare-and-set attempts
    /// while other writers keep saving; then a ``MSALRedisCacheError/serverError`` error).
    public func save(_ data: Data) throws {
        for _ in 0..<100 {
            let version = try storedVersion()
            if case .saved = try save(data, replacingVersion: version, lease: nil) { return }
        }
        throw MSALRedisCacheError.serverError.error("other writers kept saving; the document was not replaced")
    }

    // MARK: MSALCacheRefreshCoordinating

    /// Takes the lease of `key` for ``refreshLeaseDuration`` seconds (`SET NX PX`), or `nil` when
    /// it is held.
    public func acquireRefreshLease(key: String) throws -> MSALCacheRefreshLease? {
        let token = UUID().uuidString
        let milliseconds = max(1, Int64((refreshLeaseDuration * 1000).rounded()))
        let reply = try run(["SET", leaseKey(key), token, "NX", "PX", String(milliseconds)])
        switch reply {
        case .status: return MSALCacheRefreshLease(key: key, token: token)
        case .null: return nil
        default: throw unexpected(reply, "SET")
        }
    }

    /// Releases `lease` if its token still holds it (compare and delete, one Lua script).
    public func releaseRefreshLease(_ lease: MSALCacheRefreshLease) throws {
        let reply = try run(["EVAL", RedisScripts.compareAndDelete, "1", leaseKey(lease.key), lease.token])
        guard case .integer = reply else { throw unexpected(reply, "EVAL") }
    }

    // MARK: Internals

    private func leaseKey(_ key: String) -> String {
        let digest = SHA256.hash(key).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "msal:{\(cacheName)}:lease:\(digest)"
    }

    private func run(_ arguments: [String]) throws -> RedisReply {
        try run(arguments.map { Array($0.utf8) })
    }

    /// Runs one command (on a fresh connection once when a reused one turns out to be closed).
    /// Every command here is safe to repeat: reads, `SET NX`, and compare-and-set scripts.
    private func run(_ arguments: [[UInt8]]) throws -> RedisReply {
        let reply: RedisReply
        do {
            reply = try pool.withConnection { (connection) throws(RedisNativeError) in
                try connection.command(arguments)
            }
        } catch {
            throw MSALRedisCacheError.error(error)
        }
        if case .error(let text) = reply {
            let shown = TerminalText.escaped(String(text.prefix(300)))
            switch RedisErrorReply.classify(text) {
            case .refused: throw MSALRedisCacheError.authenticationFailed.error("Redis refused the command: \(shown)")
            case .server: throw MSALRedisCacheError.serverError.error("Redis answered with an error: \(shown)")
            }
        }
        return reply
    }

    private func unexpected(_ reply: RedisReply, _ command: String) -> NSError {
        MSALRedisCacheError.protocolViolation.error("unexpected reply to \(command) (\(Self.shape(reply)))")
    }

    private static func shape(_ reply: RedisReply) -> String {
        switch reply {
        case .bulk(let bytes): "a bulk string of \(bytes.count) bytes"
        case .status: "a status"
        case .error: "an error"
        case .integer: "an integer"
        case .null: "null"
        case .array(let elements): "an array of \(elements.count)"
        }
    }

    private static func version(_ bytes: [UInt8]) -> UInt64? {
        UInt64(String(decoding: bytes, as: UTF8.self))
    }
}

/// The Lua scripts (run with `EVAL`; each is atomic in Redis).
enum RedisScripts {
    /// KEYS: document, lease (the document again when no lease), write turn. ARGV: expected
    /// version, data, first version of a new document, lease token ('' for none), time to live in
    /// ms (0: none), write turn token ('' for none). Returns {1, new version} (and gives back the
    /// caller's turn), {0, stored version} on a conflict, {3, stored version} while another
    /// machine holds the turn, {2, 0} when fenced.
    static let compareAndSet = """
        if ARGV[4] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[4] then return {2, 0} end
        local stored = redis.call('HGET', KEYS[1], 'v')
        local current = 0
        if stored then current = tonumber(stored) end
        local turn = redis.call('GET', KEYS[3])
        if turn and turn ~= ARGV[6] then return {3, current} end
        if current ~= tonumber(ARGV[1]) then return {0, current} end
        local new = tonumber(ARGV[3])
        if stored then new = current + 1 end
        local text = string.format('%d', new)
        redis.call('HSET', KEYS[1], 'v', text, 'd', ARGV[2])
        if tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
        if turn then redis.call('DEL', KEYS[3]) end
        return {1, new}
        """

    /// KEYS: lease. ARGV: token. Deletes the lease only when the token still holds it.
    static let compareAndDelete = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """
}

/// The write turn of one storage: a machine whose saves keep meeting newer versions asks for it
/// (``wantsTurn``), and while it holds it the others' saves are refused, so that a slow writer
/// cannot lose every race until its change gives up. The turn lasts ``durationMilliseconds``
/// when its holder dies; a save gives it back.
struct RedisWriteTurn: Sendable, Equatable {
    /// What a compare-and-set save answered.
    enum Answer: Sendable, Equatable {
        case saved(version: UInt64)
        case fenced
        /// The stored version was another.
        case conflict
        /// Another machine holds the turn.
        case turnHeldByAnother

        /// What the library is told.
        var outcome: MSALCacheSaveOutcome {
            switch self {
            case .saved(let version): .saved(version: version)
            case .fenced: .fenced
            case .conflict, .turnHeldByAnother: .conflict
            }
        }
    }

    /// How long a turn lasts when its holder neither saves nor gives it back: long enough for
    /// one reload, change and save of a large document, short enough that a dead holder stops
    /// the others only briefly.
    static let durationMilliseconds = 500
    /// Conflicts in a row before the storage asks for the turn: the first conflict is the usual
    /// stale read, the second means others keep winning.
    static let conflictsBeforeAsking = 2

    var conflictsInARow = 0
    /// The turn this storage holds (its token), if any.
    var token: String?

    /// Whether the next save should first take the turn.
    var wantsTurn: Bool { token == nil && conflictsInARow >= Self.conflictsBeforeAsking }

    mutating func record(_ answer: Answer) {
        switch answer {
        case .saved, .fenced:
            conflictsInARow = 0
            token = nil
        case .conflict:
            conflictsInARow += 1
        case .turnHeldByAnother:
            // Ours expired and another took it, or we never had it: ask again next time.
            conflictsInARow += 1
            token = nil
        }
    }
}

/// What an error reply of Redis means for the app.
enum RedisErrorReply: Equatable, Sendable {
    /// The credentials or the ACL do not allow it: `NOAUTH`, `WRONGPASS`, `NOPERM`, or (Redis 7.0)
    /// a command of a script the user may not run, which comes as `ERR` with its own words.
    case refused
    /// Anything else: out of memory, loading, a read-only replica, a bad command.
    case server

    static func classify(_ text: String) -> RedisErrorReply {
        let code = text.prefix { $0 != " " }
        if code == "NOAUTH" || code == "NOPERM" || code == "WRONGPASS" { return .refused }
        if code == "ERR", text.contains("user executing the script can't run this command") { return .refused }
        return .server
    }
}
