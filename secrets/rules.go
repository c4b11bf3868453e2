package secrets

// extraRules are ours, in gitleaks' configuration format, for credentials
// its default rules do not catch in chat text: passwords in database
// connection strings and other URLs, Azure storage account keys in
// connection strings, and Authorization headers outside a curl command.
//
// A value that is a placeholder (${VAR}, $VAR, <password>, ****, the word
// "password" itself) is not a secret; each rule allows those. A value made of
// letters alone is taken for an identifier (Password: hashedPassword), as
// gitleaks' generic rule does.
const extraRules = `
title = "smriti"

[[rules]]
id = "connection-string-password"
description = "A password in a database or message-broker connection URL."
regex = '''(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|jdbc:[a-z]+|oracle|nats|couchdb|neo4j(?:\+s)?|bolt)://[^\s:/@'"]{0,64}:([^\s@/'"]{3,128})@[\w.\-\[\]]+'''
secretGroup = 1
keywords = ["postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver", "clickhouse", "cockroachdb", "jdbc:", "oracle://", "nats://", "couchdb", "neo4j", "bolt://"]
[[rules.allowlists]]
regexes = ['''(?i)^(?:\$\{?\w+\}?|<[^>]*>|\{\{[^}]*\}\}|%\w+%|\*+|x+|\.{3}|password|passwd|pass|pwd|secret|changeme|your[\w-]*|my[\w-]*password)$''']

[[rules]]
id = "url-password"
description = "A password in a URL's user information (basic auth)."
regex = '''(?i)\b(?:https?|ftps?|sftp|smtps?|imaps?|ldaps?|git|ssh|svn|wss?|socks5h?)://[^\s:/@'"]{1,64}:([^\s@/'"]{3,128})@[\w.\-]+'''
secretGroup = 1
keywords = ["http", "ftp", "smtp", "imap", "ldap", "git://", "ssh://", "svn://", "ws://", "wss://", "socks5"]
[[rules.allowlists]]
regexes = ['''(?i)^(?:\$\{?\w+\}?|<[^>]*>|\{\{[^}]*\}\}|%\w+%|\*+|x+|\.{3}|password|passwd|pass|pwd|secret|token|changeme|your[\w-]*|x-oauth-basic)$''']

[[rules]]
id = "azure-storage-account-key"
description = "An Azure storage account or Service Bus key in a connection string."
regex = '''(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})'''
secretGroup = 1
entropy = 3.5
keywords = ["accountkey", "sharedaccesskey"]

[[rules]]
id = "password-assignment"
description = "A value assigned to a name that ends in password, passphrase, client secret or secret key."
regex = '''(?i)[\w.-]{0,50}?(?:passw(?:or)?d|passphrase|pwd|secret[_-]?(?:access[_-]?)?key|client[_-]?secret|api[_-]?secret)["']?\s{0,3}(?:=|:|:=|=>)\s{0,3}["']?([^\s"'\x60;,]{8,128})'''
secretGroup = 1
entropy = 2.5
keywords = ["passw", "pwd", "passphrase", "secret"]
[[rules.allowlists]]
regexes = [
    '''(?i)^(?:\$\{?\w+\}?|<[^>]*>?|\{\{.*|%\w+%|\*+|x+|\.{3}.*|(?:true|false|null|none|nil|undefined)\b.*)$''',
    '''[()\[\]{}$]''',
    '''^\[redacted\b''',
    '''^[A-Za-z_.-]+$''',
]

[[rules]]
id = "authorization-header"
description = "A bearer, token or basic credential in an Authorization header."
regex = '''(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|token|basic)\s+([A-Za-z0-9._~+/\-]{16,}={0,2})'''
secretGroup = 1
entropy = 3
keywords = ["authorization"]
[[rules.allowlists]]
regexes = ['''(?i)^(?:your|my|example|placeholder|redacted)''']
`

// disabledRules are gitleaks' default rules we do not run, and why. None so
// far: over the corpus of ordinary technical messages
// (secretstest.OrdinaryMessages) no default rule fires once a rule runs only
// around its keyword. (Rules that name a file path, such as
// kubernetes-secret-yaml or hashicorp-tf-password, never match a message and
// are not run: see build.)
var disabledRules = []string{}
