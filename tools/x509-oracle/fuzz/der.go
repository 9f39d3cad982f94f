package main

// A generic TLV tree for mutations at the byte level (length forms, tags) that are then re-signed;
// the DER encoders themselves are internal/der, shared with the x509-oracle generator.

import "fabric-ops/tools/x509-oracle/internal/der"

// node is one TLV of a parsed DER tree. Constructed nodes hold children; primitive ones their bytes.
type node struct {
	tag      byte
	kids     []*node
	val      []byte
	cons     bool
	longLen  bool // encode the length in a non-minimal long form (BER, not DER)
	indefLen bool // constructed only: indefinite length with end-of-contents (BER)
}

// parseTree reads one DER element (short and long lengths, single-byte tags); ok is false when
// the bytes are not such an element with nothing after it.
func parseTree(b []byte) (*node, bool) {
	n, rest, ok := parseNode(b, 0)
	return n, ok && len(rest) == 0
}

func parseNode(b []byte, depth int) (*node, []byte, bool) {
	if len(b) < 2 || depth > 40 || b[0]&0x1f == 0x1f {
		return nil, nil, false
	}
	tag := b[0]
	l := int(b[1])
	off := 2
	if l >= 0x80 {
		k := l & 0x7f
		if k == 0 || k > 3 || len(b) < 2+k {
			return nil, nil, false
		}
		l = 0
		for i := 0; i < k; i++ {
			l = l<<8 | int(b[2+i])
		}
		off += k
	}
	if len(b)-off < l {
		return nil, nil, false
	}
	body := b[off : off+l]
	n := &node{tag: tag, cons: tag&0x20 != 0}
	if n.cons {
		for len(body) > 0 {
			k, rest, ok := parseNode(body, depth+1)
			if !ok {
				return nil, nil, false
			}
			n.kids = append(n.kids, k)
			body = rest
		}
	} else {
		n.val = body
	}
	return n, b[off+l:], true
}

func (n *node) encode() []byte {
	var body []byte
	if n.cons {
		for _, k := range n.kids {
			body = append(body, k.encode()...)
		}
	} else {
		body = n.val
	}
	if n.indefLen && n.cons {
		out := append([]byte{n.tag, 0x80}, body...)
		return append(out, 0, 0)
	}
	if n.longLen {
		l := len(body)
		out := []byte{n.tag, 0x83, byte(l >> 16), byte(l >> 8), byte(l)}
		return append(out, body...)
	}
	return der.TLV(n.tag, body)
}

// walk lists every node, depth first.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, k := range n.kids {
		k.walk(f)
	}
}
