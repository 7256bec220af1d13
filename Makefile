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
             mousepad tesseract-ocr libtesseract-dev tesseract-ocr-eng gcc-mingw-w64-x86-64 \
             bubblewrap wmctrl xfonts-base
# (xfonts-base: xterm's default bitmap font; without it xterm draws no text.)
# The apps eval/checks' tests drive to read and make the files OSWorld's
# getters and metrics read, and that OSWorld's tasks launch: Chromium
# (DevTools tabs, its profile; socat forwards the DevTools port as the tasks
# ask), VLC (its HTTP interface), LibreOffice Calc, Writer and Impress,
# Thunderbird (its profile), GIMP and Nautilus; GNOME Videos (totem), the
# default video player of OSWorld's Ubuntu snapshot, which multi_apps/937087b6
# ("make VLC the default") starts from (apt-get install: 20 packages, 40 s here);
# GNOME Terminal, which the tasks open with Ctrl+Alt+T and vm_terminal_output
# reads (apt-get install --no-install-recommends: 4 packages, 2.6 MB, 6 s here).
# libreoffice-gtk3, the VCL plugin OSWorld's Ubuntu snapshot runs LibreOffice
# with and the only one here with an accessibility tree (check_left_panel
# reads it; LibreOffice picks it by itself once installed: one package, 2 s).
# sysstat, whose sar multi_apps/2373b66a runs (its setup "installs" it: the
# box's sudo does an install of what is installed already), and jq, with
# which chrome/3299584d's setup edits the browser's Preferences (the same).
# python3-lxml, with which compare_epub pretty-prints the epubs' HTML as
# OSWorld's function does (one package, 1.5 MB); python3-opencv, with which
# compare_videos reads the videos' frames as OSWorld's does (87 packages with
# what it pulls in, GDAL, MPI and VTK among them: 33 s of apt-get install here).
EVAL_APPS := chromium socat vlc libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 thunderbird gimp nautilus totem \
             gnome-terminal sysstat jq python3-lxml python3-opencv
DEB_PKGS  += $(EVAL_APPS)
# Wayland: headless sway (wlroots; the pixman renderer, no GPU) and mutter
# with pipewire + wireplumber for the wlroots, gnome and portal backends'
# tests (vision/wldisplay), native apps to drive there (foot, zenity and
# mousepad above), grim and wtype as the peers `make bench` measures against,
# the PipeWire headers the gnome backend's frames compile against (the
# library itself is loaded at run time), the portal and its GNOME
# implementation, and the protocol XML that internal/wl's generated bindings
# are checked against (libwayland-dev, wayland-protocols, the wlr protocols in
# librust-wayland-protocols-dev, plasma-wayland-protocols); Xwayland, which
# mutter starts for the X11 clients (the app) whose windows the gnome and
# portal backends find.
DEB_PKGS  += sway grim wtype foot wl-clipboard wayland-utils \
             mutter xwayland pipewire pipewire-bin wireplumber libglib2.0-bin \
             libpipewire-0.3-dev libspa-0.2-dev \
             xdg-desktop-portal xdg-desktop-portal-gnome \
             libwayland-dev wayland-protocols librust-wayland-protocols-dev plasma-wayland-protocols
# pdftotext, the reference TestPDFWideCorpus measures the PDF reader against
# (it skips without it).
DEB_PKGS  += poppler-utils
# What `deskpilot eval` needs at run time besides the libraries the binary links
# (deploy/k8s/Dockerfile's runtime stage: no compiler, no -dev package): the
# private displays, the apps the suites drive, OCR's data and AT-SPI.
RUNTIME_PKGS := ca-certificates xvfb openbox xdotool x11-utils x11-xserver-utils xterm xclip \
             python3 python3-tk python3-pil python3-pyatspi imagemagick fonts-dejavu-core fonts-noto-cjk \
             xdg-utils at-spi2-core dbus-daemon dbus-x11 zenity mousepad tesseract-ocr tesseract-ocr-eng \
             $(EVAL_APPS) bubblewrap wmctrl
export CGO_ENABLED := 1
# VERSION is what `deskpilot --version` reports and what the packages are called:
# FyneApp.toml's Version, and for an untagged commit ~git<count>.<hash>
# (packaging/version.sh). COMMIT and BUILD_DATE are stamped next to it; the date
# is a day (SOURCE_DATE_EPOCH's, when set), so a rebuild with nothing changed
# does not link again.
VERSION    ?= $(shell packaging/version.sh 2>/dev/null || echo dev)
COMMIT     ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILD_DATE ?= $(shell date -u $${SOURCE_DATE_EPOCH:+-d @$$SOURCE_DATE_EPOCH} +%Y-%m-%d)
LDFLAGS    ?= -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)
# The Windows build: cgo (robotgo) with the mingw-w64 cross compiler.
BIN_WIN   := bin/deskpilot.exe
WIN_ENV   := GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc

.PHONY: node-deps all deps build build-wayland build-windows dist run test test-short vet lint bench fmt clean \
        package package-deps test-package

# Packaging (make package, make test-package): the Debian tools the artifacts are
# made and checked with, where they go, and the .deb's Maintainer.
PKG_DEB_PKGS := dpkg-dev lintian desktop-file-utils zip unzip binutils binutils-mingw-w64-x86-64 mmdebstrap patchelf
DIST         ?= dist
MAINTAINER   ?= deskpilot developers <deskpilot-developers@users.noreply.github.com>

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

## build: compile bin/deskpilot, naming each package as it compiles
build: deps
	@echo "building $(BIN) $(VERSION) (the first build compiles the GUI toolkit: a few minutes)"
	@GO=$(GO) packaging/gobuild.sh $(BIN) -ldflags '$(LDFLAGS)'

## build-wayland: compile bin/deskpilot-wayland, whose app window is a native
## Wayland one (Fyne's GLFW chooses X11 or Wayland at build time)
build-wayland: deps
	$(GO) build -tags wayland -ldflags '$(LDFLAGS)' -o bin/deskpilot-wayland .

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

## node-deps: the real MCP peers the tests drive deskpilot with (the official
## TypeScript SDK client, the Inspector CLI, server-everything), from the
## committed lock file; nothing when they are installed as locked
NODE_DIR := test/node
node-deps: $(NODE_DIR)/node_modules/.installed

$(NODE_DIR)/node_modules/.installed: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "installing: nodejs npm"; $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## test: set up, lint, build both release binaries (dist), and run every test
## with the race detector on private X displays
test: deps node-deps lint dist
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
	$(GO) test -run '^$$' -bench . -benchtime 1s ./vision/... ./actions/... ./a11y/... ./agent/script/ ./agent/llm/ \
	  ./agent/dialect/ ./agent/secret/ ./agent/trace/ ./internal/desktop/ ./internal/wlroots/
	$(GO) test -run '^$$' -bench Ground -benchtime 20x ./internal/wiring/
	$(GO) test -run '^$$' -bench 'Build/.*/steps=1000$$' -benchtime 1x ./agent/trace/dataset/
	$(GO) test -run '^$$' -bench 'Build/.*/steps=10000$$' -benchtime 1x ./agent/trace/dataset/
	$(GO) test -run '^$$' -bench Parallel -benchtime 1x ./eval/
	$(GO) test -run '^$$' -bench . -benchtime 60x ./agent/ -bench StepOverhead
	$(GO) test -run '^$$' -bench PromptGrowth -benchtime 1x ./agent/
	$(GO) test -run '^$$' -bench LongRun -benchtime 1x ./internal/cli/
	bash scripts/bench-eval.sh 3
	bash scripts/bench-peers.sh 30
	bash scripts/bench-wayland.sh 30

## package: the .deb, the tarball and the Windows zip of `make dist`'s binaries,
## and their SHA256SUMS, under dist/ (packaging/package.sh)
package: dist package-deps
	@VERSION='$(VERSION)' COMMIT='$(COMMIT)' BUILD_DATE='$(BUILD_DATE)' BIN='$(BIN)' BIN_WIN='$(BIN_WIN)' \
	  DIST='$(DIST)' MAINTAINER='$(MAINTAINER)' GO='$(GO)' packaging/package.sh

package-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS='$(PKG_DEB_PKGS)'

## test-package: build the packages and check them: lintian, the desktop entry
## on a private Xvfb, the tarball's install.sh, and the .deb installed with apt
## into a clean Debian root (mmdebstrap) where it must run, then be removed
test-package: package-deps
	DESKPILOT_TEST_PACKAGE=1 $(GO) test -count=1 -timeout 40m -v ./packaging/...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin $(DIST)

## print-runtime-pkgs: the Debian packages eval needs at run time (the image's runtime stage)
print-runtime-pkgs:
	@echo $(RUNTIME_PKGS)
