module github.com/gosh-term/gosh

go 1.25.0

toolchain go1.26.8

require (
	github.com/spf13/cobra v1.10.2
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
