package resolve

// builtinNames are the official engine's builtin functions, in its order
// (the order matters for "did you mean" suggestions of equal similarity).
var builtinNames = []string{
	"option", "print", "multiplyof", "isunique", "isnullish", "len", "abs", "all_true",
	"any_true", "hex", "bin", "oct", "ord", "sorted", "range", "max", "min", "sum", "pow",
	"round", "zip", "int", "float", "bool", "str", "list", "dict", "typeof", "reduce",
}

var builtinSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range builtinNames {
		m[n] = true
	}
	return m
}()

// systemModules are the official standard modules and their function members.
var systemModules = map[string][]string{
	"base64":     {"encode", "decode"},
	"base32":     {"encode", "decode"},
	"net":        {"CIDR_host", "CIDR_netmask", "CIDR_subnet", "CIDR_subnets", "split_host_port", "join_host_port", "fqdn", "parse_IP", "IP_string", "to_IP4", "to_IP6", "is_IPv4", "is_IPv6", "is_IP", "is_loopback_IP", "is_multicast_IP", "is_interface_local_multicast_IP", "is_link_local_multicast_IP", "is_link_local_unicast_IP", "is_global_unicast_IP", "is_unspecified_IP", "parse_CIDR", "is_IP_in_CIDR"},
	"manifests":  {"yaml_stream"},
	"math":       {"ceil", "factorial", "floor", "gcd", "isfinite", "isinf", "isnan", "modf", "exp", "expm1", "log", "log1p", "log2", "log10", "pow", "sqrt"},
	"datetime":   {"ticks", "date", "now", "today", "validate", "is_rfc3339", "is_iso8601"},
	"regex":      {"replace", "match", "compile", "findall", "search", "split"},
	"yaml":       {"encode", "encode_all", "decode", "decode_all", "dump_to_file", "dump_all_to_file", "validate"},
	"json":       {"encode", "decode", "dump_to_file", "validate", "merge"},
	"crypto":     {"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake3", "uuid", "filesha256"},
	"units":      {"n", "u", "m", "k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi", "to_n", "to_u", "to_m", "to_K", "to_M", "to_G", "to_T", "to_P", "to_Ki", "to_Mi", "to_Gi", "to_Ti", "to_Pi"},
	"file":       {"read", "glob", "modpath", "workdir", "current", "exists", "abs", "append", "mkdir", "delete", "cp", "mv", "size", "write", "read_env"},
	"template":   {"execute", "html_escape"},
	"runtime":    {"catch"},
	"collection": {"union_all"},
}

var systemMembers = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for mod, names := range systemModules {
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		m[mod] = set
	}
	return m
}()
