import type { Certificate } from './certificate.ts';
import { bytesEqual } from './der.ts';

// Certificate policy validation as Go 1.24+ runs it on every candidate chain (crypto/x509/verify.go
// policiesValid): RFC 5280 section 6.1 with the policy graph of RFC 9618, no user policy set and
// none of the initial inhibit flags (crypto/tls passes none). OIDs are compared by their DER
// bodies, here as hex. Ported step for step; Go's map iteration order never changes the outcome.

/** anyPolicy (2.5.29.32.0) as a DER body in hex. */
const ANY_POLICY = '551d2000';

class PolicyNode {
  expectedPolicySet: string[];
  readonly parents = new Set<PolicyNode>();
  readonly children = new Set<PolicyNode>();

  constructor(
    readonly validPolicy: string,
    parents: Iterable<PolicyNode>,
  ) {
    this.expectedPolicySet = [validPolicy];
    for (const p of parents) {
      p.children.add(this);
      this.parents.add(p);
    }
  }
}

class PolicyGraph {
  readonly strata: Map<string, PolicyNode>[];
  private parentIndex = new Map<string, PolicyNode[]>();
  depth = 0;

  constructor() {
    this.strata = [new Map([[ANY_POLICY, new PolicyNode(ANY_POLICY, [])]])];
  }

  insert(n: PolicyNode): void {
    this.strata[this.depth]!.set(n.validPolicy, n);
  }

  parentsWithExpected(expected: string): PolicyNode[] {
    return this.depth === 0 ? [] : (this.parentIndex.get(expected) ?? []);
  }

  parentWithAnyPolicy(): PolicyNode | undefined {
    return this.depth === 0 ? undefined : this.strata[this.depth - 1]!.get(ANY_POLICY);
  }

  parents(): Iterable<PolicyNode> {
    return this.depth === 0 ? [] : this.strata[this.depth - 1]!.values();
  }

  leaves(): Map<string, PolicyNode> {
    return this.strata[this.depth]!;
  }

  leafWithPolicy(policy: string): PolicyNode | undefined {
    return this.strata[this.depth]!.get(policy);
  }

  deleteLeaf(policy: string): void {
    const n = this.strata[this.depth]!.get(policy);
    if (n === undefined) return;
    for (const p of n.parents) p.children.delete(n);
    for (const c of n.children) c.parents.delete(n);
    this.strata[this.depth]!.delete(policy);
  }

  validPolicyNodes(): PolicyNode[] {
    const valid: PolicyNode[] = [];
    for (let i = this.depth; i >= 0; i--) {
      for (const n of this.strata[i]!.values()) {
        if (n.validPolicy === ANY_POLICY) continue;
        if (n.parents.size === 1 && [...n.parents][0]!.validPolicy === ANY_POLICY) valid.push(n);
      }
    }
    return valid;
  }

  prune(): void {
    for (let i = this.depth - 1; i > 0; i--) {
      const stratum = this.strata[i]!;
      for (const [key, n] of [...stratum]) {
        if (n.children.size === 0) {
          for (const p of n.parents) p.children.delete(n);
          stratum.delete(key);
        }
      }
    }
  }

  incrDepth(): void {
    this.parentIndex = new Map();
    for (const n of this.strata[this.depth]!.values()) {
      for (const e of n.expectedPolicySet) {
        const list = this.parentIndex.get(e);
        if (list === undefined) this.parentIndex.set(e, [n]);
        else list.push(n);
      }
    }
    this.depth++;
    this.strata.push(new Map());
  }
}

/** policiesValid(chain, opts) with crypto/tls's options: true when the chain's policy graph is valid. */
export function policiesValid(chain: readonly Certificate[]): boolean {
  if (chain.length === 1) return true;
  // n: the chain's length without the trust anchor.
  const n = chain.length - 1;
  let pg: PolicyGraph | undefined = new PolicyGraph();
  let inhibitAnyPolicy = n + 1;
  let explicitPolicy = n + 1;
  let policyMapping = n + 1;

  for (let i = n - 1; i >= 0; i--) {
    const cert = chain[i]!;
    const isSelfSigned = bytesEqual(cert.rawIssuer, cert.rawSubject);
    // 6.1.3 (e), (f)
    if (cert.policies.length === 0) pg = undefined;
    if (explicitPolicy === 0 && pg === undefined) return false;

    if (pg !== undefined) {
      pg.incrDepth();
      const policies = new Set<string>();
      // 6.1.3 (d) (1)
      for (const policy of cert.policies) {
        policies.add(policy);
        if (policy === ANY_POLICY) continue;
        let parents = pg.parentsWithExpected(policy);
        if (parents.length === 0) {
          const anyParent = pg.parentWithAnyPolicy();
          if (anyParent !== undefined) parents = [anyParent];
        }
        if (parents.length > 0) pg.insert(new PolicyNode(policy, parents));
      }
      // 6.1.3 (d) (2); Go's "n-i < n" is the specification's "i < n" with the chain reversed.
      if (policies.has(ANY_POLICY) && (inhibitAnyPolicy > 0 || (n - i < n && isSelfSigned))) {
        const missing = new Map<string, PolicyNode[]>();
        const leaves = pg.leaves();
        for (const p of pg.parents()) {
          for (const expected of p.expectedPolicySet) {
            if (leaves.get(expected) === undefined) {
              const list = missing.get(expected);
              if (list === undefined) missing.set(expected, [p]);
              else list.push(p);
            }
          }
        }
        for (const [oid, parents] of missing) pg.insert(new PolicyNode(oid, parents));
      }
      // 6.1.3 (d) (3)
      pg.prune();

      if (i !== 0 && cert.policyMappings.length > 0) {
        // 6.1.4 (b)
        const mappings = new Map<string, string[]>();
        for (const mapping of cert.policyMappings) {
          if (policyMapping > 0) {
            if (mapping.issuerDomainPolicy === ANY_POLICY || mapping.subjectDomainPolicy === ANY_POLICY) return false;
            const list = mappings.get(mapping.issuerDomainPolicy);
            if (list === undefined) mappings.set(mapping.issuerDomainPolicy, [mapping.subjectDomainPolicy]);
            else list.push(mapping.subjectDomainPolicy);
          } else {
            pg.deleteLeaf(mapping.issuerDomainPolicy);
          }
        }
        pg.prune();
        for (const [issuer, subjects] of mappings) {
          const matching = pg.leafWithPolicy(issuer);
          if (matching !== undefined) {
            matching.expectedPolicySet = subjects;
          } else {
            const anyLeaf = pg.leafWithPolicy(ANY_POLICY);
            if (anyLeaf !== undefined) {
              const node = new PolicyNode(issuer, [anyLeaf]);
              node.expectedPolicySet = subjects;
              pg.insert(node);
            }
          }
        }
      }
    }

    if (i !== 0) {
      // 6.1.4 (h)
      if (!isSelfSigned) {
        if (explicitPolicy > 0) explicitPolicy--;
        if (policyMapping > 0) policyMapping--;
        if (inhibitAnyPolicy > 0) inhibitAnyPolicy--;
      }
      // 6.1.4 (i), (j)
      if ((cert.requireExplicitPolicy > 0 || cert.requireExplicitPolicyZero) && cert.requireExplicitPolicy < explicitPolicy) {
        explicitPolicy = cert.requireExplicitPolicy;
      }
      if ((cert.inhibitPolicyMapping > 0 || cert.inhibitPolicyMappingZero) && cert.inhibitPolicyMapping < policyMapping) {
        policyMapping = cert.inhibitPolicyMapping;
      }
      if ((cert.inhibitAnyPolicy > 0 || cert.inhibitAnyPolicyZero) && cert.inhibitAnyPolicy < inhibitAnyPolicy) {
        inhibitAnyPolicy = cert.inhibitAnyPolicy;
      }
    }
  }

  // 6.1.5 (a), (b)
  if (explicitPolicy > 0) explicitPolicy--;
  if (chain[0]!.requireExplicitPolicyZero) explicitPolicy = 0;

  // 6.1.5 (g): with no user policy set (anyPolicy), the user-constrained set is the authority's.
  let validCount = 0;
  if (pg !== undefined) {
    validCount = pg.validPolicyNodes().length;
    if (pg.leafWithPolicy(ANY_POLICY) !== undefined) validCount++;
  }
  return !(explicitPolicy === 0 && validCount === 0);
}
