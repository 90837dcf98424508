#!/usr/bin/env bash
# Generates a synthetic git history for benchmarks, fast, with `git fast-import`.
#
#   scripts/gen-history.sh DIR [COMMITS] [FILES]
#
# DIR must not exist (or be empty). Defaults: 20000 commits over 300 starting files.
# The history is deterministic (fixed seed, fixed dates) and mixes what real projects do:
# edits of one to three files per commit (lines replaced, inserted, deleted), new files,
# deletions, renames (some with edits), binary files with NUL bytes, several authors, and
# a merge of a short side branch every 150 commits. The result is repacked like a clone
# (set NO_REPACK=1 to keep fast-import's pack) and checked out on `main`.
set -euo pipefail

dir=${1:?usage: gen-history.sh DIR [COMMITS] [FILES]}
commits=${2:-20000}
files=${3:-300}

if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
  echo "gen-history: $dir exists and is not empty" >&2
  exit 2
fi
mkdir -p "$dir"
git -C "$dir" init -q -b main
git -C "$dir" config gc.auto 0

start=$(date +%s)
perl - "$commits" "$files" <<'PERL' | git -C "$dir" fast-import --quiet --depth=50
use strict;
use warnings;

my ($ncommits, $nfiles) = @ARGV;
srand(20261125);
binmode STDOUT;

my @authors = (
    ["Ada Agent", "ada\@agents.example"],
    ["Copilot", "198982749+Copilot\@users.noreply.github.com"],
    ["Mia Maintainer", "mia\@example.org"],
    ["Bo Builder", "bo\@example.org"],
    ["Cy Contributor", "cy\@example.net"],
);
my @words = qw(let mut fn return if else match self value count total index parse
    config state error result buffer line path commit tree diff patch hash rule
    breaker window attempt signature failure token item list map set vec option);

my %text;     # path => [lines]
my %binary;   # path => 1
my @paths;    # live text paths
my @bins;     # live binary paths
my $next_file = 0;
my $time = 1_600_000_000;
my $mark = 0;
my $main_tip = 0;
my @main_marks;

sub word { $words[int(rand(@words))] }
sub code_line {
    my $indent = " " x (4 * int(rand(3)));
    my $n = 2 + int(rand(6));
    return $indent . join(" ", map { word() } 1 .. $n) . ";\n";
}
sub new_path {
    my $i = $next_file++;
    my $r = rand();
    return sprintf("tests/mod%d/case_%d_test.rs", $i % 17, $i) if $r < 0.2;
    return sprintf("docs/topic_%d.md", $i) if $r < 0.3;
    return sprintf("src/mod%d/sub%d/file_%d.rs", $i % 23, $i % 5, $i);
}
sub blob {
    my ($content) = @_;
    return "data " . length($content) . "\n" . $content . "\n";
}
sub text_of { join("", @{ $text{ $_[0] } }) }
sub random_binary {
    my $len = 2048 + int(rand(16384));
    return join("", map { chr(int(rand(256))) } 1 .. $len) . "\0";
}
sub header {
    my ($ref, $msg) = @_;
    $time += 300 + int(rand(3300));
    my $a = $authors[int(rand(@authors))];
    $mark++;
    my $out = "commit $ref\nmark :$mark\n";
    $out .= "author $a->[0] <$a->[1]> $time +0000\n";
    $out .= "committer $a->[0] <$a->[1]> $time +0000\n";
    $out .= blob($msg);
    return $out;
}
sub add_text_file {
    my $p = new_path();
    $text{$p} = [map { code_line() } 1 .. (30 + int(rand(90)))];
    push @paths, $p;
    return "M 100644 inline $p\n" . blob(text_of($p));
}
sub edit_text_file {
    my ($p) = @_;
    my $lines = $text{$p};
    for (1 .. 1 + int(rand(3))) {
        $lines->[int(rand(@$lines))] = code_line() if @$lines;
    }
    my $at = int(rand(@$lines + 1));
    splice(@$lines, $at, 0, map { code_line() } 1 .. int(rand(6)));
    for (1 .. int(rand(4))) {
        splice(@$lines, int(rand(@$lines)), 1) if @$lines > 10;
    }
    return "M 100644 inline $p\n" . blob(text_of($p));
}

# The initial import.
{
    my $out = header("refs/heads/main", "Initial import\n");
    $out .= add_text_file() for 1 .. $nfiles;
    for my $i (1 .. 5) {
        my $p = "assets/image_$i.bin";
        $binary{$p} = 1;
        push @bins, $p;
        $out .= "M 100644 inline $p\n" . blob(random_binary());
    }
    print $out;
    $main_tip = $mark;
    push @main_marks, $mark;
}

my $made = 1;
while ($made < $ncommits) {
    if ($made % 150 == 0 && @main_marks > 5) {
        # A side branch from a few commits back, merged with a merge commit.
        my $base = $main_marks[-5];
        my $side = sprintf("side/note_%d.txt", $made);
        my $content = join("", map { code_line() } 1 .. 10);
        print header("refs/heads/side", "Side work $made\n"), "from :$base\n",
            "M 100644 inline $side\n", blob($content);
        my $side_mark = $mark;
        print header("refs/heads/main", "Merge branch 'side' ($made)\n"),
            "from :$main_tip\nmerge :$side_mark\n", "M 100644 inline $side\n", blob($content);
        $main_tip = $mark;
        push @main_marks, $mark;
        $made += 2;
        next;
    }
    my $r = rand();
    my ($msg, $ops) = ("", "");
    if ($r < 0.05) {
        $ops = add_text_file();
        $msg = "Add $paths[-1]\n";
    } elsif ($r < 0.07 && @paths > $nfiles / 2) {
        my $i = int(rand(@paths));
        my $p = splice(@paths, $i, 1);
        delete $text{$p};
        $ops = "D $p\n";
        $msg = "Remove $p\n";
    } elsif ($r < 0.10) {
        my $i = int(rand(@paths));
        my $old = $paths[$i];
        my $new = new_path();
        $text{$new} = delete $text{$old};
        $paths[$i] = $new;
        $ops = "R $old $new\n";
        $ops .= edit_text_file($new) if rand() < 0.5;
        $msg = "Move $old to $new\n";
    } elsif ($r < 0.12) {
        my $p = $bins[int(rand(@bins))];
        $ops = "M 100644 inline $p\n" . blob(random_binary());
        $msg = "Update $p\n";
    } else {
        my %seen;
        for (1 .. 1 + int(rand(3))) {
            my $p = $paths[int(rand(@paths))];
            next if $seen{$p}++;
            $ops .= edit_text_file($p);
        }
        $msg = join(" ", map { word() } 1 .. 3 + int(rand(5))) . "\n\nDetails: "
            . join(" ", map { word() } 1 .. 12) . "\n";
        $msg = ucfirst($msg);
    }
    print header("refs/heads/main", $msg), $ops;
    $main_tip = $mark;
    push @main_marks, $mark;
    $made++;
}
PERL

if [ -z "${NO_REPACK:-}" ]; then
  git -C "$dir" repack -adq
fi
git -C "$dir" checkout -q -f main
count=$(git -C "$dir" rev-list --count main)
echo "gen-history: $dir: $count commits in $(( $(date +%s) - start ))s" >&2
