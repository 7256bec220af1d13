# deskpilot — build, run and test on Debian.
# `make run` and `make test` do all the set-up themselves (see README.md).

GO        ?= go
BIN       := bin/deskpilot
PKGS      := ./...
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the build, the app and the tests need.
DEB_PKGS  := gcc pkg-config xvfb openbox xdotool x11-utils x11-xserver-utils xterm xclip \
             libx11-dev libxtst-dev libpng-dev libxkbcommon-dev libxkbcommon-x11-dev \
             libx11-xcb-dev libxcb-xkb-dev libgl1-mesa-dev xorg-dev \
             python3 python3-tk imagemagick scrot python3-pil bc fonts-dejavu-core \
             fonts-noto-cjk xdg-utils at-spi2-core dbus-daemon dbus-x11 zenity python3-pyatspi \
             mousepad tesseract-ocr libtesseract-dev tesseract-ocr-eng gcc-mingw-w64-x86-64
# The apps eval/checks' tests drive to read and make the files OSWorld's
# getters and metrics read: Chromium (DevTools tabs, its profile), VLC (its
# HTTP interface), LibreOffice Impress (presentations), Thunderbird (its
# profile).
DEB_PKGS  += chromium vlc libreoffice-impress thunderbird
export CGO_ENABLED := 1
# VERSION is what `deskpilot --version` reports: the git description, else "dev".
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# LDFLAGS stamps the version into the binary; point -X at wherever the version
# variable lives (today package main).
LDFLAGS   ?= -X main.version=$(VERSION)
# The Windows build: cgo (robotgo) with the mingw-w64 cross compiler.
BIN_WIN   := bin/deskpilot.exe
WIN_ENV   := GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc

.PHONY: all deps build build-windows dist run test test-short vet lint bench fmt clean

all: build

## deps: install the missing Debian packages (nothing when all are there)
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

## build: compile bin/deskpilot
build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

## build-windows: cross-compile bin/deskpilot.exe (windows/amd64, mingw-w64)
build-windows: deps
	$(WIN_ENV) $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN_WIN) .

## dist: bin/deskpilot (linux/amd64) and bin/deskpilot.exe (windows/amd64)
dist: deps
	GOOS=linux GOARCH=amd64 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .
	$(WIN_ENV) $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN_WIN) .

## run: set up, build and open the app
run: build
	./$(BIN)

## test: set up, lint, build both release binaries (dist), and run every test
## with the race detector on private X displays
test: deps lint dist
	$(GO) test -race -count=1 -timeout 40m $(PKGS)

vet:
	$(GO) vet $(PKGS)

STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck

## lint: vet, gofmt, go mod tidy leaves no diff, staticcheck, and the import
## directions of docs/architecture.md (internal/archtest)
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	@[ -x $(STATICCHECK) ] && $(STATICCHECK) -version | grep -q $(STATICCHECK_VERSION:v%=%) || \
	  $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) $(PKGS)
	$(GO) test -count=1 ./internal/archtest/

## bench: Go benchmarks, then deskpilot against the peer pipelines (docs/benchmarks.md)
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1s ./vision/... ./actions/... ./agent/script/ ./agent/llm/ ./agent/trace/
	$(GO) test -run '^$$' -bench . -benchtime 60x ./agent/ -bench StepOverhead
	$(GO) test -run '^$$' -bench PromptGrowth -benchtime 1x ./agent/
	$(GO) test -run '^$$' -bench LongRun -benchtime 1x ./internal/cli/
	bash scripts/bench-eval.sh 3
	bash scripts/bench-peers.sh 30

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
