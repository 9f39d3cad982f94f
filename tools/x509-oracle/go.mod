module fabric-ops/tools/x509-oracle

go 1.26.4
