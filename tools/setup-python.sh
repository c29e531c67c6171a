#!/bin/sh
# Picks the Python that builds .venv and checks that this machine can run MLX, before anything is
# installed. Plain POSIX sh: it runs before a suitable Python is known (a stock Mac has 3.9).
#
#   sh tools/setup-python.sh pick      print the interpreter set-up would use
#   sh tools/setup-python.sh venv DIR  make DIR a virtual environment of that interpreter, first
#                                      removing one whose Python no longer runs, is older than 3.10,
#                                      is of the wrong architecture, or is not the PYTHON asked for
#
# PYTHON, when set and not empty, names the interpreter; otherwise the newest of python3.14 ...
# python3.10 on PATH that runs and suits this machine is used, then python3 if it does.
# Minimums, from the wheels mlx publishes (mlx 0.29.4 to 0.32.4): macOS 14 on Apple silicon
# (macosx_14_0_arm64 and newer tags only), Linux with glibc 2.35 (manylinux_2_35 only), CPython 3.10+.
set -u
set -f  # no globbing: the probe's output is split into words below, and nothing here uses a glob

NEWEST_MINOR=14
OLDEST_MINOR=10
OLDEST_MACOS=14
OLDEST_GLIBC_MINOR=35

NOTE=''  # said before the reason set-up stops, when there is more to say
stop() {
  [ -z "$NOTE" ] || printf '%s\n' "$NOTE" >&2
  printf '%s\n' "$@" >&2
  exit 1
}

# Runs on any Python, 2.7 included, and prints "MAJOR MINOR VERSION MACHINE", e.g. "3 9 3.9.6 arm64".
PROBE='import sys, platform; print("%d %d %s %s" % (sys.version_info[0], sys.version_info[1], platform.python_version(), platform.machine()))'

# What this machine is, from tools every Mac and Linux has; sets OS and APPLE_SILICON, or stops.
check_machine() {
  OS=$(uname -s)
  APPLE_SILICON=no
  case "$OS" in
    Darwin)
      if [ "$(sysctl -n hw.optional.arm64 2>/dev/null)" != 1 ]; then
        stop "This is an Intel Mac. MLX runs only on Apple silicon (M1 and later): there is no MLX" \
             "for Intel Macs, so the book's code cannot run here. Read the book online, or use an" \
             "M-series Mac or Linux."
      fi
      APPLE_SILICON=yes
      macos=$(sw_vers -productVersion 2>/dev/null)
      case "${macos%%.*}" in
        ''|*[!0-9]*) stop "Could not read the macOS version (sw_vers -productVersion said '$macos')." ;;
      esac
      if [ "${macos%%.*}" -lt "$OLDEST_MACOS" ]; then
        stop "This Mac runs macOS $macos; the book needs macOS $OLDEST_MACOS (Sonoma) or newer." \
             "MLX publishes wheels for macOS $OLDEST_MACOS and newer only since mlx 0.29.4: on macOS" \
             "$macos pip would fall back to mlx 0.29.3, and for Python 3.14 there is none at all." \
             "Update macOS (System Settings > General > Software Update), then run make again."
      fi
      ;;
    Linux)
      glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null)  # "glibc 2.36"; nothing on musl (Alpine)
      case "$glibc" in
        "glibc 2."[0-9]*) ;;
        *) stop "This Linux has no glibc (getconf GNU_LIBC_VERSION said '$glibc'). MLX ships only" \
                "manylinux_2_35 wheels, which need glibc 2.35 or newer: use a glibc distribution such" \
                "as Ubuntu 22.04+ or Debian 12+." ;;
      esac
      glibc_minor=${glibc#glibc 2.}
      glibc_minor=${glibc_minor%%[!0-9]*}
      if [ "$glibc_minor" -lt "$OLDEST_GLIBC_MINOR" ]; then
        stop "This Linux has ${glibc}; MLX ships only manylinux_2_35 wheels, which need glibc" \
             "2.$OLDEST_GLIBC_MINOR or newer: Ubuntu 22.04+, Debian 12+ or Fedora 36+ (not RHEL 9 or" \
             "Amazon Linux 2023, whose glibc is 2.34). Use such a system or a container of one."
      fi
      ;;
    *)
      stop "This is $OS. MLX ships wheels for macOS on Apple silicon and for Linux only; run the" \
           "book's code on one of those (on Windows, inside WSL with Ubuntu 22.04 or newer)."
      ;;
  esac
}

# examine PYTHON: sets WHY to the reason the interpreter cannot build .venv here (empty when it
# can), and VERSION and MACHINE to what it reports about itself.
examine() {
  WHY='' VERSION='' MACHINE=''
  probed=$("$1" -c "$PROBE" 2>/dev/null) || { WHY="does not run"; return; }
  # shellcheck disable=SC2086  # split into its four words on purpose
  set -- $probed
  case "$#:${1:-}:${2:-}" in
    4:[0-9]*:[0-9]*) ;;
    *) WHY="does not run as a Python"; return ;;
  esac
  VERSION=$3 MACHINE=$4
  if [ "$1" -ne 3 ] || [ "$2" -lt "$OLDEST_MINOR" ]; then
    WHY="Python $VERSION, older than 3.$OLDEST_MINOR"
  elif [ "$APPLE_SILICON" = yes ] && [ "$MACHINE" != arm64 ]; then
    WHY="Python $VERSION for $MACHINE, which runs under Rosetta: MLX has no $MACHINE macOS wheels"
  fi
}

rosetta_advice() {
  echo "On an Apple-silicon Mac, an x86_64 Python (Intel Homebrew in /usr/local, an x86_64 conda)" \
       "runs under Rosetta, and MLX has no x86_64 macOS wheels. Use an arm64 Python (Homebrew in" \
       "/opt/homebrew, python.org, uv); if the Python is universal2 and still says x86_64, the" \
       "terminal itself runs under Rosetta: run 'arch -arm64 make book' or open a native terminal."
}

get_python_advice() {
  echo "Install Python 3.$OLDEST_MINOR or newer, then run the same make command again:"
  echo "  Homebrew:   brew install python@3.13"
  echo "  python.org: the macOS installer from https://www.python.org/downloads/"
  echo "  uv:         uv python install 3.13"
  echo "  Linux:      your distribution's python3.12 (or newer) package"
  echo "Or name an interpreter you have: make book PYTHON=/path/to/python3.12"
}

# Sets CHOSEN to the Python to build .venv with, and CHOSEN_VERSION, CHOSEN_MACHINE; or stops.
choose_python() {
  if [ -n "${PYTHON:-}" ]; then
    path=$(command -v "$PYTHON" 2>/dev/null) || stop "PYTHON=$PYTHON: no such command." \
      "$(get_python_advice)"
    examine "$path"
    if [ -n "$WHY" ]; then
      case "$WHY" in *Rosetta*) advice=$(rosetta_advice) ;; *) advice=$(get_python_advice) ;; esac
      stop "PYTHON=$PYTHON ($path) cannot build the book's environment: $WHY." "$advice"
    fi
    CHOSEN=$path CHOSEN_VERSION=$VERSION CHOSEN_MACHINE=$MACHINE
    return
  fi
  looked=''
  rosetta=no
  names=''
  minor=$NEWEST_MINOR
  while [ "$minor" -ge "$OLDEST_MINOR" ]; do
    names="$names python3.$minor"
    minor=$((minor - 1))
  done
  for name in $names python3; do
    path=$(command -v "$name" 2>/dev/null) || continue
    examine "$path"
    if [ -z "$WHY" ]; then
      CHOSEN=$path CHOSEN_VERSION=$VERSION CHOSEN_MACHINE=$MACHINE
      return
    fi
    case "$WHY" in *Rosetta*) rosetta=yes ;; esac
    looked="$looked
  $name ($path): $WHY"
  done
  if [ -z "$looked" ]; then
    looked="
  none of python3.$NEWEST_MINOR ... python3.$OLDEST_MINOR or python3 is on PATH"
  fi
  advice=$(get_python_advice)
  if [ "$rosetta" = yes ]; then advice="$(rosetta_advice)
$advice"; fi
  stop "No Python 3.$OLDEST_MINOR or newer that can run MLX here; the book needs one. Found:$looked" \
       "$advice"
}

# Removes DIR when it is a virtual environment that set-up must not reuse, saying why.
remove_stale_venv() {
  dir=$1
  [ -e "$dir" ] || return 0
  if [ ! -f "$dir/pyvenv.cfg" ]; then
    stop "$dir exists but is not a virtual environment (it has no pyvenv.cfg). Move it away, then run" \
         "make again: set-up creates its environment there."
  fi
  examine "$dir/bin/python"
  case "$WHY" in
    '') stale='' ;;
    "does not run"*) stale="its Python no longer runs (removed or upgraded since $dir was made?)" ;;
    *) stale="it was made with $WHY" ;;
  esac
  if [ -z "$stale" ] && [ -n "${PYTHON:-}" ]; then
    venv_version=$VERSION venv_machine=$MACHINE
    choose_python
    if [ "$venv_version $venv_machine" != "$CHOSEN_VERSION $CHOSEN_MACHINE" ]; then
      stale="it was made with Python $venv_version ($venv_machine), and PYTHON=$PYTHON is Python $CHOSEN_VERSION ($CHOSEN_MACHINE)"
    fi
  fi
  if [ -n "$stale" ]; then
    NOTE="$dir cannot be reused: $stale. It is left as it is until there is a Python to rebuild it with."
    choose_python  # stops when there is none
    NOTE=''
    echo "Recreating $dir: $stale."
    rm -rf "$dir"
  fi
}

make_venv() {
  dir=$1
  remove_stale_venv "$dir"
  [ -e "$dir" ] && return 0
  choose_python
  echo "Creating $dir with $CHOSEN (Python $CHOSEN_VERSION, $CHOSEN_MACHINE)."
  if ! "$CHOSEN" -m venv "$dir"; then
    rm -rf "$dir"
    stop "$CHOSEN could not create a virtual environment. On Debian or Ubuntu install the venv" \
         "module (apt-get install python3-venv, or python3.X-venv for the version above), then run" \
         "make again."
  fi
  examine "$dir/bin/python"
  if [ -n "$WHY" ]; then
    rm -rf "$dir"
    stop "$CHOSEN made $dir, but its bin/python $WHY; run make again with PYTHON= set to another Python."
  fi
}

check_machine
case "${1:-}" in
  pick) choose_python; echo "$CHOSEN" ;;
  venv) [ $# -eq 2 ] || stop "usage: sh tools/setup-python.sh venv DIR"; make_venv "$2" ;;
  *) stop "usage: sh tools/setup-python.sh pick | venv DIR" ;;
esac
