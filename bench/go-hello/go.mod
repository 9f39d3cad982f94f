module fabric-ops/bench/go-hello

go 1.19
