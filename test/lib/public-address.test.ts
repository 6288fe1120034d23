import { describe, expect, it } from 'vitest';
import { hostReach, targetProblem } from '../../src/lib/public-address';

/** What the host of `url` reaches, read the way every caller reads it: from the parsed URL. */
const reachOf = (url: string) => hostReach(new URL(url).hostname);
const kindOf = (url: string) => reachOf(url).kind;

describe('hostReach', () => {
  it('finds the private, link-local, CGNAT and metadata addresses in every IPv4 form the URL parser reads', () => {
    for (const url of [
      'https://10.0.0.1/',
      'https://0x0a.0.0.1/', // hex octet
      'https://0xa000001/', // one hex number
      'https://167772161/', // one decimal number
      'https://012.0.0.1/', // octal octet
      'https://10.1/', // short form: 10.0.0.1
      'https://10.0.1/',
      'https://10.0.0.1./', // trailing dot
      'https://%31%30.0.0.1/', // percent-encoded
      'https://172.16.0.1/',
      'https://172.31.255.255/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://100.127.255.255/',
      'https://100.100.100.200/', // Alibaba Cloud metadata
      'https://169.254.169.254/latest/meta-data/', // AWS, GCP, Azure metadata
      'https://2852039166/', // 169.254.169.254 as one number
      'https://169.254.0.1/',
      'https://192.0.0.192/', // Oracle Cloud metadata (192.0.0.0/24)
      'https://0.0.0.0/',
      'https://0/',
      'https://0.1.2.3/',
      'https://192.0.2.1/',
      'https://198.18.0.1/',
      'https://198.19.255.255/',
      'https://198.51.100.7/',
      'https://203.0.113.9/',
      'https://224.0.0.1/',
      'https://239.255.255.250/',
      'https://240.0.0.1/',
      'https://255.255.255.255/',
      'https://4294967295/',
    ]) {
      expect(kindOf(url), url).toBe('non-public');
    }
  });

  it('finds them in IPv6: ULA, link-local, site-local, multicast, unspecified, and IPv4 inside IPv6', () => {
    for (const url of [
      'https://[fd00::1]/',
      'https://[fc00::1]/',
      'https://[fd00:ec2::254]/', // AWS metadata over IPv6
      'https://[fe80::1]/',
      'https://[febf:ffff::1]/',
      'https://[fec0::1]/', // site-local (deprecated)
      'https://[ff02::1]/',
      'https://[::]/',
      'https://[::ffff:10.0.0.1]/', // the parser writes [::ffff:a00:1]
      'https://[::ffff:169.254.169.254]/',
      'https://[::ffff:0:0]/',
      'https://[::10.0.0.1]/', // IPv4-compatible (deprecated)
      'https://[::8.8.8.8]/',
      'https://[64:ff9b::10.0.0.1]/', // NAT64 of a private address
      'https://[64:ff9b::127.0.0.1]/', // a translator's own loopback is not ours
      'https://[64:ff9b:1::8.8.8.8]/', // local-use NAT64
      'https://[2002:a00:1::]/', // 6to4 of 10.0.0.1
      'https://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
      'https://[2001::1]/', // Teredo (IETF protocol assignments)
      'https://[2001:db8::1]/',
      'https://[3fff::1]/',
      'https://[100::1]/', // discard-only
      'https://[5f00::1]/', // outside 2000::/3
    ]) {
      expect(kindOf(url), url).toBe('non-public');
    }
  });

  it('names the range a refused address sits in', () => {
    expect(reachOf('https://169.254.169.254/')).toEqual({
      kind: 'non-public',
      range: 'link-local and cloud metadata (169.254.0.0/16)',
    });
    expect(reachOf('https://100.64.0.1/')).toEqual({ kind: 'non-public', range: 'carrier-grade NAT (100.64.0.0/10)' });
    expect(reachOf('https://[::ffff:10.0.0.1]/')).toEqual({ kind: 'non-public', range: 'private (10.0.0.0/8)' });
    expect(reachOf('https://[64:ff9b::a00:1]/')).toEqual({
      kind: 'non-public',
      range: 'NAT64 (64:ff9b::/96) of private (10.0.0.0/8)',
    });
  });

  it('takes a loopback address, in every form, as loopback', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://127.255.255.254/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:127.0.0.1]/', // v4-mapped loopback: the same socket
    ]) {
      expect(kindOf(url), url).toBe('loopback');
    }
  });

  it('refuses names a local network resolves: localhost, .local, .internal, .home.arpa, single labels', () => {
    for (const url of [
      'http://localhost/', // loopback, but a name: only a literal loopback address is ever a target
      'http://LOCALHOST./',
      'http://api.localhost/',
      'https://printer.local/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://ip-10-0-0-1.ec2.internal/',
      'https://router.home.arpa/',
      'https://nas.localdomain/',
      'https://metadata/',
      'https://metadata./',
      'https://intranet/',
      'https://xn--bcher-kva/', // a single label, punycode or not
    ]) {
      expect(kindOf(url), url).toBe('non-public');
    }
    expect(reachOf('https://metadata/')).toEqual({
      kind: 'non-public',
      range: 'a single-label name, resolved by the local network',
    });
    expect(reachOf('https://a.b.internal/')).toEqual({
      kind: 'non-public',
      range: 'a name of the local network (.internal)',
    });
  });

  it('refuses wildcard DNS names that embed a private, loopback or metadata address, in every form', () => {
    for (const url of [
      'https://10.0.0.1.nip.io/',
      'https://app.10.0.0.1.nip.io/',
      'https://customer2-app.127.0.0.1.nip.io/',
      'https://10-0-0-1.nip.io/',
      'https://app-10-0-0-1.nip.io/',
      'https://magic.169-254-169-254.nip.io/',
      'https://0a000001.nip.io/', // hex: 10.0.0.1
      'https://app-7f000001.nip.io/', // hex: 127.0.0.1
      'https://192.168.1.1.sslip.io/',
      'https://10-0-0-1.sslip.io/',
      'https://www.172-16-0-1.SSLIP.io./',
      'https://--1.sslip.io/', // IPv6 ::1
      'https://fd00--1.sslip.io/', // IPv6 fd00::1
      'https://app-fe80--1.sslip.io/',
      'https://100.64.0.1.xip.io/',
      'https://10-0-0-1.traefik.me/',
      'https://localtest.me/', // resolves every name to 127.0.0.1
      'https://app.localtest.me/',
      'https://lvh.me/',
      'https://a.vcap.me/',
      'https://x.lacolhost.com/',
    ]) {
      expect(kindOf(url), url).toBe('non-public');
    }
    expect(reachOf('https://app.10-0-0-1.nip.io/')).toEqual({
      kind: 'non-public',
      range: 'a nip.io name of private (10.0.0.0/8)',
    });
    expect(reachOf('https://127.0.0.1.nip.io/')).toEqual({ kind: 'non-public', range: 'a nip.io name of loopback' });
    // A public address embedded, or none (the service's own host), is public.
    for (const url of [
      'https://8.8.8.8.nip.io/',
      'https://app-116-203-255-68.nip.io/',
      'https://nip.io/',
      'https://www.sslip.io/',
      'https://2a01-4f8-c17-b8f--2.sslip.io/',
      'https://10.0.0.1.example.com/', // no wildcard service: a name like any other (no lookup)
    ]) {
      expect(kindOf(url), url).toBe('public');
    }
  });

  it('takes public addresses and DNS names as public (no lookup is made)', () => {
    for (const url of [
      'https://8.8.8.8/',
      'https://1.1.1.1/',
      'https://9.255.255.255/',
      'https://11.0.0.0/',
      'https://100.63.255.255/',
      'https://100.128.0.0/',
      'https://128.0.0.1/',
      'https://169.253.255.255/',
      'https://172.15.255.255/',
      'https://172.32.0.0/',
      'https://192.0.1.1/',
      'https://192.167.255.255/',
      'https://192.169.0.0/',
      'https://198.17.255.255/',
      'https://198.20.0.0/',
      'https://223.255.255.255/',
      'https://[2606:4700:4700::1111]/',
      'https://[2a00:1450:4001::200e]/',
      'https://[::ffff:8.8.8.8]/',
      'https://[64:ff9b::8.8.8.8]/',
      'https://[2002:808:808::1]/', // 6to4 of 8.8.8.8
      'https://example.com/',
      'https://localhost.example.com/',
      'https://nip.io.example.com/',
      'https://local.example.com/',
      'https://10.0.0.1.example/',
      'https://xn--bcher-kva.example/',
      'https://cafe.face/',
    ]) {
      expect(kindOf(url), url).toBe('public');
    }
  });

  it('reads a bare hostname (not from a URL) the way an http URL would', () => {
    expect(hostReach('0x0a.0.0.1').kind).toBe('non-public');
    expect(hostReach('2130706433').kind).toBe('loopback');
    expect(hostReach('::ffff:10.0.0.1').kind).toBe('non-public');
    expect(hostReach('[FD00::1]').kind).toBe('non-public');
    expect(hostReach('::1').kind).toBe('loopback');
    expect(hostReach('999.0.0.1').kind).toBe('non-public');
    expect(hostReach('[fe80::1%25eth0]').kind).toBe('non-public');
    expect(hostReach('Example.COM').kind).toBe('public');
  });
});

describe('targetProblem', () => {
  it('refuses a loopback address unless ALLOW_LOOPBACK_TARGETS, and non-public hosts either way', () => {
    const off = { allowLoopback: false };
    const on = { allowLoopback: true };
    for (const host of ['127.0.0.1', '127.1', '2130706433', '0x7f.1', '[::1]', '[::ffff:127.0.0.1]']) {
      expect(targetProblem(host, off), host).toMatch(/loopback address .*ALLOW_LOOPBACK_TARGETS=true/);
      expect(targetProblem(host, on), host).toBeUndefined();
    }
    for (const host of ['localhost', '10.0.0.1', '169.254.169.254', 'metadata', '10.0.0.1.nip.io', 'a.local']) {
      for (const rules of [off, on]) {
        expect(targetProblem(host, rules), host).toMatch(/^must not name a private, link-local or other non-public/);
      }
    }
    expect(targetProblem('example.com', off)).toBeUndefined();
    expect(targetProblem('[2606:4700:4700::1111]', off)).toBeUndefined();
  });
});
