/// Writes the cache document in MSAL Python's shape: top-level `AccessToken`, `RefreshToken`,
/// `IdToken`, `Account`, `AppMetadata` objects keyed by MSAL Python's keys (or an entry's
/// original key), string timestamps, each entry's unknown fields after its known ones, then
/// `AccountMetadata` and the unknown sections unchanged. One entry per line.
enum CacheDocumentWriter {
    /// Where each token's secret was written, in the order of the contents' arrays.
    struct Placements {
        var accessTokens: [SecretPlacement] = []
        var refreshTokens: [SecretPlacement] = []
        var idTokens: [SecretPlacement] = []
    }

    /// Writes the document. Secrets held as places in a file are copied through `copier`; check
    /// its ``CacheSecretCopier/failed`` before using the output.
    @discardableResult
    static func write(_ contents: CacheContents, to output: ByteOutput, copier: CacheSecretCopier) -> Placements {
        var placements = Placements()
        placements.accessTokens.reserveCapacity(contents.accessTokens.count)
        placements.refreshTokens.reserveCapacity(contents.refreshTokens.count)
        placements.idTokens.reserveCapacity(contents.idTokens.count)
        var builder = CacheKeyBuilder()
        output.append("{")
        section("AccessToken", contents.accessTokens, output, &builder) { token, output in
            var first = true
            output.member("credential_type", "AccessToken", first: &first)
            placements.accessTokens.append(output.secretMember(token.secretValue, copier: copier, first: &first))
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("client_id", token.clientId, first: &first)
            output.member("target", token.target, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("token_type", token.tokenType, first: &first)
            output.member("cached_at", timestamp: token.cachedAt, first: &first)
            output.member("expires_on", timestamp: token.expiresOn, first: &first)
            output.member("extended_expires_on", timestamp: token.extendedExpiresOn, first: &first)
            output.member("refresh_on", timestamp: token.refreshOn, first: &first)
        }
        output.append(",")
        section("RefreshToken", contents.refreshTokens, output, &builder) { token, output in
            var first = true
            output.member("credential_type", "RefreshToken", first: &first)
            placements.refreshTokens.append(output.secretMember(token.secretValue, copier: copier, first: &first))
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("client_id", token.clientId, first: &first)
            output.member("target", token.target, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("last_modification_time", token.lastModificationTime, first: &first)
            output.member("family_id", token.familyId, first: &first)
        }
        output.append(",")
        section("IdToken", contents.idTokens, output, &builder) { token, output in
            var first = true
            output.member("credential_type", "IdToken", first: &first)
            placements.idTokens.append(output.secretMember(token.secretValue, copier: copier, first: &first))
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("client_id", token.clientId, first: &first)
        }
        output.append(",")
        section("Account", contents.accounts, output, &builder) { account, output in
            var first = true
            output.member("home_account_id", account.homeAccountId, first: &first)
            output.member("environment", account.environment, first: &first)
            output.member("realm", account.realm, first: &first)
            output.member("local_account_id", account.localAccountId, first: &first)
            output.member("username", account.username, first: &first)
            output.member("authority_type", account.authorityType, first: &first)
            output.member("client_info", account.clientInfo, first: &first)
            output.member("name", account.name, first: &first)
            output.member("given_name", account.givenName, first: &first)
            output.member("family_name", account.familyName, first: &first)
            output.member("middle_name", account.middleName, first: &first)
        }
        output.append(",")
        section("AppMetadata", contents.appMetadata, output, &builder) { metadata, output in
            var first = true
            output.member("client_id", metadata.clientId, first: &first)
            output.member("environment", metadata.environment, first: &first)
            output.member("family_id", metadata.familyId, first: &first)
        }
        if !contents.accountMetadata.isEmpty || !contents.accountMetadataUnknown.isEmpty {
            output.append(",")
            writeAccountMetadata(contents, output)
        }
        for (name, rawValue) in contents.unknownSections {
            output.append(",\n")
            output.appendQuoted(name)
            output.append(":")
            output.appendRaw(rawValue)
        }
        output.append("\n}\n")
        return placements
    }

    private static func section<Entity: CacheEntity>(
        _ name: StaticString, _ entities: [Entity], _ output: ByteOutput, _ builder: inout CacheKeyBuilder,
        _ body: (Entity, ByteOutput) -> Void
    ) {
        output.append("\n\"")
        output.append(name)
        output.append("\":{")
        var first = true
        for entity in entities {
            output.append(first ? "\n" : ",\n")
            first = false
            if let key = entity.originalKey {
                output.appendQuoted(key)
            } else {
                entity.buildKey(&builder)
                builder.bytes.withUnsafeBufferPointer { output.appendQuoted($0) }
            }
            output.append(":{")
            body(entity, output)
            if !entity.unknown.isEmpty {
                output.append(",")
                output.appendRaw(entity.unknown.raw)
            }
            output.append("}")
        }
        output.append("}")
    }

    private static func writeAccountMetadata(_ contents: CacheContents, _ output: ByteOutput) {
        var byClient: [String: [CacheAccountMetadata]] = [:]
        var clients: [String] = []
        for record in contents.accountMetadata {
            if byClient[record.clientId] == nil { clients.append(record.clientId) }
            byClient[record.clientId, default: []].append(record)
        }
        for client in contents.accountMetadataUnknown.keys.sorted() where byClient[client] == nil {
            clients.append(client)
            byClient[client] = []
        }
        output.append("\n\"AccountMetadata\":{")
        for (clientIndex, client) in clients.enumerated() {
            output.append(clientIndex == 0 ? "\n" : ",\n")
            output.appendQuoted(client)
            output.append(":{")
            var first = true
            output.member("client_id", client, first: &first)
            output.append(",\"account_metadata_map\":{")
            for (index, record) in (byClient[client] ?? []).enumerated() {
                if index > 0 { output.append(",") }
                output.appendQuoted(record.homeAccountId)
                output.append(":{")
                var firstField = true
                output.member("client_id", client, first: &firstField)
                output.member("home_account_id", record.homeAccountId, first: &firstField)
                output.member("sign_in_state", record.signInState.rawValue, first: &firstField)
                if !record.authorityMap.isEmpty {
                    output.append(",\"athority_map\":")
                    let maps = record.authorityMap.mapValues { map in JSONValue.object(map.mapValues(JSONValue.string))
                    }
                    output.appendRaw(JSONValue.object(maps).serializedString(options: .sortedKeys))
                }
                if !record.unknown.isEmpty {
                    output.append(",")
                    output.appendRaw(record.unknown.raw)
                }
                output.append("}")
            }
            output.append("}")
            if let unknown = contents.accountMetadataUnknown[client], !unknown.isEmpty {
                output.append(",")
                output.appendRaw(unknown.raw)
            }
            output.append("}")
        }
        output.append("}")
    }
}
