package der

import "encoding/asn1"

// The object identifiers both the generator and the fuzzer write: extensions, name attributes
// and public-key algorithms (RFC 5280, RFC 3279, RFC 5480).
var (
	OIDBC   = asn1.ObjectIdentifier{2, 5, 29, 19}
	OIDKU   = asn1.ObjectIdentifier{2, 5, 29, 15}
	OIDEKU  = asn1.ObjectIdentifier{2, 5, 29, 37}
	OIDSKID = asn1.ObjectIdentifier{2, 5, 29, 14}
	OIDAKID = asn1.ObjectIdentifier{2, 5, 29, 35}
	OIDSAN  = asn1.ObjectIdentifier{2, 5, 29, 17}
	OIDNC   = asn1.ObjectIdentifier{2, 5, 29, 30}

	OIDCN = asn1.ObjectIdentifier{2, 5, 4, 3}
	OIDC  = asn1.ObjectIdentifier{2, 5, 4, 6}
	OIDO  = asn1.ObjectIdentifier{2, 5, 4, 10}
	OIDOU = asn1.ObjectIdentifier{2, 5, 4, 11}

	OIDRSA      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	OIDECPublic = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
)
