#!/usr/bin/env perl
# Turns one guide of Docs/ into a DocC article, for scripts/build-docs.sh. Docs/*.md stay the only
# source of the guides (they read well on a git host); this writes a transformed copy into the
# catalog that build-docs.sh stages in .build-docs.
#
#   scripts/docc-guide.pl [--symbols names.txt] Docs/Errors.md > .build-docs/…/MSAL.docc/Guides/Errors.md
#
# What changes, outside code blocks:
#   [text](Other.md)               ->  [text](<doc:Other>)
#   [Other.md](Other.md)           ->  <doc:Other>                        (shown with Other's title)
#   [text](Other.md#some-heading)  ->  [text](<doc:Other#Some-Heading>)   (DocC's anchor of it)
#   [text](#some-heading)          ->  the same, in this guide
#   [text](../Sources/X.swift)     ->  text (`Sources/X.swift`)           (a repository file)
#   `MSALResult`                   ->  ``MSALResult``    (with --symbols: a top-level symbol of the
#                                                         module; not in headings)
#   # The `msal` tool  (the title) ->  # The msal tool   (DocC's navigator shows the backticks)
# Lines are neither added nor removed, so docc's line numbers are those of Docs/.
# Links with a scheme (https:, mailto:, doc:) are kept. Fails (exit 1, a message on stderr) when a
# link names a guide or heading that does not exist, or when the first line is not `# Title`, so a
# broken guide breaks the docs build instead of shipping a dead link.
use strict;
use warnings;
use File::Basename qw(basename dirname);

# --symbols FILE: names of the module's top-level symbols, one a line. A code span that is exactly
# one of them (`MSALResult`) becomes a symbol link (``MSALResult``) to its reference page.
my %symbols;
if (@ARGV && $ARGV[0] eq '--symbols') {
    shift @ARGV;
    my $file = shift @ARGV or die "--symbols needs a file\n";
    open(my $names, '<', $file) or die "$file: $!\n";
    while (my $name = <$names>) {
        chomp $name;
        $symbols{$name} = 1 if $name ne '';
    }
    close $names;
}
my $path = shift @ARGV or die "usage: $0 [--symbols FILE] Docs/Guide.md\n";
my $docs = dirname($path);
my $self = basename($path, '.md');
my $failures = 0;

sub complain {
    my ($line, $message) = @_;
    print STDERR "$path:$line: error: $message\n";
    $failures++;
}

# The headings of a guide: GitHub's anchor of each (what the guides link to) -> DocC's anchor.
my %anchors;
sub anchors_of {
    my ($guide) = @_;
    return $anchors{$guide} if $anchors{$guide};
    my %map;
    my %seen;
    open(my $in, '<:utf8', "$docs/$guide.md") or return undef;
    my $fence = '';
    while (my $line = <$in>) {
        if ($line =~ /^\s*(```|~~~)/) {
            $fence = $fence eq '' ? $1 : ($fence eq $1 ? '' : $fence);
            next;
        }
        next if $fence ne '' or $line !~ /^(#{1,6})\s+(.*?)\s*#*\s*$/;
        my ($level, $title) = (length $1, $2);
        my $plain = $title;
        $plain =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;    # a link in a heading: its text
        $plain =~ s/[`*_]//g;
        # GitHub: lower case, drop punctuation, spaces to hyphens, -1, -2... for repeats.
        my $github = lc $plain;
        $github =~ s/[^\w\- ]//g;
        $github =~ s/ /-/g;
        my $n = $seen{$github}++;
        $github .= "-$n" if $n;
        # DocC: the heading's text, whitespace to hyphens, characters a fragment cannot hold dropped.
        my $docc = $plain;
        $docc =~ s/^\s+|\s+$//g;
        $docc =~ s/\s+/-/g;
        $docc =~ s/[^\w\-.~!\$&'()*+,;=:@]//g;
        $map{$github} = $level == 1 ? '' : $docc;    # the title is the page itself
    }
    close $in;
    return $anchors{$guide} = \%map;
}

sub doc_link {
    my ($line, $guide, $fragment) = @_;
    unless (-f "$docs/$guide.md") {
        complain($line, "link to $guide.md, which is not a guide in $docs/");
        return undef;
    }
    return "<doc:$guide>" unless defined $fragment && $fragment ne '';
    my $docc = anchors_of($guide)->{lc $fragment};
    unless (defined $docc) {
        complain($line, "link to $guide.md#$fragment: no such heading in $guide.md");
        return undef;
    }
    return $docc eq '' ? "<doc:$guide>" : "<doc:$guide#$docc>";
}

sub rewrite {
    my ($line, $text, $target) = @_;
    return "[$text]($target)" if $target =~ /^[A-Za-z][A-Za-z0-9+.-]*:/;    # https:, mailto:, doc:
    if ($target =~ m{^#(.*)$}) {
        my $link = doc_link($line, $self, $1);
        return defined $link ? "[$text]($link)" : "[$text]($target)";
    }
    if ($target =~ m{^(?:\./)?(?:\.\./Docs/)?([A-Za-z0-9_-]+)\.md(?:#(.*))?$}) {
        my ($guide, $fragment) = ($1, $2);
        my $link = doc_link($line, $guide, $fragment);
        return "[$text]($target)" unless defined $link;
        # [Errors.md](Errors.md): the site shows the guide's title instead of a file name.
        return $link if !defined $fragment && ($text eq "$guide.md" || $text eq $guide);
        return "[$text]($link)";
    }
    # A file or folder of the repository: the site has no page for it, so name it.
    my $file = $target;
    $file =~ s/#.*$//;
    $file = "Docs/$file" unless $file =~ s{^\.\./}{};
    $file =~ s{^(?:\./)+}{};
    (my $bare = $file) =~ s{/$}{};
    return "$text" if grep { $text eq $_ } ($file, "`$file`", $bare, "`$bare`");
    return "$text (`$file`)";
}

binmode STDOUT, ':utf8';
binmode STDERR, ':utf8';
sub code_span {
    my ($span, $line) = @_;
    return $span if $line =~ /^#/;    # DocC shows a symbol link in a heading as its raw reference
    return "`$span`" if $span =~ /^`([A-Za-z_][A-Za-z0-9_]*)`$/ && $symbols{$1};
    return $span;
}

open(my $in, '<:utf8', $path) or die "$path: $!\n";
my $fence = '';
my $number = 0;
while (my $line = <$in>) {
    $number++;
    if ($number == 1 && $line !~ /^# \S/) {
        complain(1, "a guide starts with its title, `# Title` (DocC needs it)");
    }
    if ($line =~ /^\s*(```|~~~)/) {
        $fence = $fence eq '' ? $1 : ($fence eq $1 ? '' : $fence);
        print $line;
        next;
    }
    if ($number == 1) {
        # The title: DocC's navigator shows a code span's backticks, so drop them.
        $line =~ s/`([^`]*)`/$1/g;
    }
    if ($fence eq '' && $line =~ /^ {0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?(.*)$/s) {
        # A reference-style link's definition: [name]: Other.md
        my ($name, $target, $rest) = ($1, $2, $3);
        my ($guide, $fragment);
        if ($target =~ m{^#(.*)$}) {
            ($guide, $fragment) = ($self, $1);
        } elsif ($target =~ m{^(?:\./)?(?:\.\./Docs/)?([A-Za-z0-9_-]+)\.md(?:#(.*))?$}) {
            ($guide, $fragment) = ($1, $2);
        }
        if (defined $guide) {
            my $link = doc_link($number, $guide, $fragment);
            $line = "[$name]: $link$rest" if defined $link;
        } elsif ($target !~ /^[A-Za-z][A-Za-z0-9+.-]*:/) {
            complain($number, "[$name]: $target is a repository file, which has no page in the site: use an inline link");
        }
        print $line;
        next;
    }
    if ($fence eq '') {
        # Code spans are kept as they are (or become symbol links); a link's text may hold one.
        $line =~ s{(`+[^`]*`+)|(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)}
                  {defined $1 ? code_span($1, $line) : rewrite($number, $2, $3)}ge;
    }
    print $line;
}
close $in;
exit($failures ? 1 : 0);
