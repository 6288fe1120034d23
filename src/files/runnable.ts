// Files that run when opened: one list, refused at upload whatever ALLOWED_FILE_TYPES says
// (by extension, by declared type, and by content through file-type.ts).
//
// Where the list comes from (checked November 2026; keep it in step with them):
// - Microsoft's "Blocked attachments in Outlook" (learn.microsoft.com, Outlook Level 1 list),
//   which is also the list of high-risk types of the Windows Attachment Manager that Microsoft
//   Defender SmartScreen warns about, and Gmail's blocked attachment types;
// - the types abused to leak credentials or run code although they are not programs: Windows
//   shell locations and search connectors (.library-ms .search-ms .searchConnector-ms), themes
//   (.theme .themepack .deskthemepack: a remote wallpaper path leaks NTLM hashes), Remote
//   Desktop files (.rdp), Excel web queries and SYLK (.iqy .slk), MOF (.mof);
// - macOS's quarantine list, the types Launch Services marks LSRiskCategoryUnsafeExecute
//   (applications, AppleScript, Automator workflows, installer packages, location files,
//   configuration profiles, plug-ins);
// - the Unix equivalents and interpreted scripts (.sh .py .pl .rb .php .lua …);
// - Office files that carry macros (issue 29): the macro-enabled formats whose names and media
//   types say so (.docm .dotm .xlsm .xltm .xlam .xlsb .pptm .potm .ppsm .ppam .sldm, Visio's
//   .vsdm .vssm .vstm, the old add-ins and macro sheets .xla .xlm .ppa), the types Microsoft
//   Defender for Office 365's common attachments filter refuses by default (docm, ppa, ppam)
//   and those Office blocks macros in when they come from the internet; Access databases of
//   every generation (.accdb .accde .accda .accdr .accdt beside .mdb .mde), which run VBA when
//   opened; OneNote notebooks (.one .onepkg), which run the files embedded in them on a click
//   and were the common way to deliver malware once macros were blocked; web archives (.mht
//   .mhtml), which open in Internet Explorer mode with their scripts and ActiveX; certificate
//   bundles (.p7b .p7c), which install like .cer; Remote Assistance invitations
//   (.msrcincident), which connect the machine to whoever made them.
// Disk images (.iso .img .vhd .vhdx .dmg) are in: Windows and macOS mount them on a double click
// and what is inside escapes the downloaded-file warning, which made them a common way to
// deliver malware. Cabinet files (.cab .diagcab) are in too: Windows opens them as installers
// and troubleshooting packs. Ordinary archives (.zip .tar .gz .bz2 .xz .zst .7z .rar) stay
// allowed: opening one only shows what is inside. Outlook's list also holds .pst and .tmp,
// which hold data and run nothing: they stay allowed.

/** Extensions (lowercase, without the dot) refused on any uploaded name, by what they are. */
export const RUNNABLE_EXTENSIONS: readonly string[] = [
  // Windows programs, libraries, drivers and control panel items
  'exe com scr pif cpl dll sys drv ocx vxd xll lib msc gadget app',
  // Windows installers, app packages and troubleshooting packs
  'msi msp mst msu msix msixbundle appx appxbundle appinstaller application appref-ms xbap cab',
  'diagcab diagcfg diagpack',
  // Windows scripts and the help and setup files that run code
  'bat bas cmd js jse mjs cjs vb vbe vbs vbp wsf wsh wsc ws wsb sct hta htc shb shs nsh chm hlp hpj cnt',
  'ins isp its inf reg scf bgi grp mcf ops osd pcd plg prf prg printerexport vsmacros vsw webpnp xnk mof',
  'ps1 ps1xml ps2 ps2xml psc1 psc2 psm1 psd1 psdm1 msh msh1 msh2 mshxml msh1xml msh2xml',
  // Shortcuts, shell locations and search connectors that point at something else to run
  'lnk url website settingcontent-ms library-ms search-ms searchconnector-ms appcontent-ms',
  // Files that reach out to another host when opened (credential leaks, remote code)
  'theme themepack deskthemepack rdp iqy slk',
  // Certificates and certificate bundles (installing one changes whom the machine trusts)
  'cer crt der p7b p7c',
  // Access databases and projects (run VBA when opened), FoxPro, server pages, Java, Android
  'ade adp mad maf mag mam maq mar mas mat mau mav maw mda mdb mde mdt mdw mdz fxp asp aspx',
  'accda accdb accde accdr accdt',
  // Office documents, templates and add-ins that carry macros, and OneNote notebooks
  'docm dotm xlsm xltm xlam xlsb xla xlm pptm potm ppsm ppam sldm ppa vsdm vssm vstm one onepkg',
  // Web archives and Remote Assistance invitations
  'mht mhtml msrcincident',
  'jar jnlp apk',
  // Disk images
  'iso img vhd vhdx dmg',
  // Unix and macOS programs, scripts, launchers and packages
  'sh bash zsh csh tcsh ksh fish command tool terminal term desktop appimage run so dylib pkg mpkg deb rpm',
  // macOS: AppleScript, Automator, plug-ins, location files and configuration profiles
  'applescript scpt scptd osax workflow action definition prefpane saver wdgt widget plugin bundle kext',
  'fileloc inetloc webloc afploc ftploc mobileconfig',
  // Interpreted scripts
  'py pyw pyz pyzw pyc pyo pl rb php phtml phar lua',
].flatMap((group) => group.split(' '));

/** Media types refused when declared, guessed from the name or proved by the bytes. */
export const RUNNABLE_MEDIA_TYPES: readonly string[] = [
  // Native programs (the bytes prove ELF, PE/MZ and Mach-O: see detectFromBytes)
  'application/x-msdownload',
  'application/x-msdos-program',
  'application/x-dosexec',
  'application/vnd.microsoft.portable-executable',
  'application/x-executable',
  'application/x-elf',
  'application/x-sharedlib',
  'application/x-pie-executable',
  'application/x-mach-binary',
  'application/wasm',
  // Installers and packages
  'application/x-msi',
  'application/x-ms-installer',
  'application/x-ms-application',
  'application/x-ms-xbap',
  'application/vnd.ms-cab-compressed',
  'application/msix',
  'application/appx',
  'application/vnd.ms-appx',
  'application/java-archive',
  'application/x-java-archive',
  'application/x-java-jnlp-file',
  'application/vnd.android.package-archive',
  'application/x-apple-diskimage',
  'application/x-iso9660-image',
  'application/x-raw-disk-image',
  'application/x-debian-package',
  'application/vnd.debian.binary-package',
  'application/x-rpm',
  'application/x-redhat-package-manager',
  'application/x-newton-compatible-pkg',
  'application/x-appimage',
  'application/vnd.appimage',
  // Shortcuts and launchers
  'application/x-ms-shortcut',
  'application/x-mswinurl',
  'application/x-desktop',
  // Windows scripting
  'application/hta',
  'application/x-hta',
  'text/vbscript',
  'text/vbs',
  'application/x-vbscript',
  'application/x-bat',
  'application/x-msdos-batch',
  'text/x-powershell',
  'application/x-powershell',
  'text/x-ms-regedit',
  'application/vnd.ms-htmlhelp',
  'application/x-chm',
  // JavaScript (Windows Script Host runs .js)
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'text/ecmascript',
  'text/jscript',
  // Unix shells and interpreters
  'text/x-shellscript',
  'application/x-sh',
  'application/x-shellscript',
  'text/x-sh',
  'application/x-csh',
  'text/x-csh',
  'text/x-python',
  'application/x-python',
  'text/x-script.python',
  'application/x-python-code',
  'text/x-perl',
  'application/x-perl',
  'text/x-ruby',
  'application/x-ruby',
  'application/x-httpd-php',
  'application/x-php',
  'text/x-php',
  'text/x-lua',
  'application/x-lua',
  'application/x-applescript',
  'application/x-apple-aspen-config',
  'application/x-rdp',
  'application/x-ms-rdp',
  'text/x-ms-iqy',
  'application/x-iqy',
  'application/x-sylk',
  'text/x-sylk',
  'application/x-ms-theme',
  'application/x-x509-ca-cert',
  'application/pkix-cert',
  'application/x-pkcs7-certificates',
  'application/pkcs7-mime',
  // Office with macros (the registered types say "macroEnabled"; stored lowercased), Access,
  // OneNote
  'application/vnd.ms-word.document.macroenabled.12',
  'application/vnd.ms-word.template.macroenabled.12',
  'application/vnd.ms-excel.sheet.macroenabled.12',
  'application/vnd.ms-excel.template.macroenabled.12',
  'application/vnd.ms-excel.addin.macroenabled.12',
  'application/vnd.ms-excel.sheet.binary.macroenabled.12',
  'application/vnd.ms-powerpoint.presentation.macroenabled.12',
  'application/vnd.ms-powerpoint.template.macroenabled.12',
  'application/vnd.ms-powerpoint.slideshow.macroenabled.12',
  'application/vnd.ms-powerpoint.addin.macroenabled.12',
  'application/vnd.ms-powerpoint.slide.macroenabled.12',
  'application/vnd.ms-visio.drawing.macroenabled.main+xml',
  'application/vnd.ms-visio.stencil.macroenabled.main+xml',
  'application/vnd.ms-visio.template.macroenabled.main+xml',
  'application/x-msaccess',
  'application/msaccess',
  'application/vnd.ms-access',
  'application/onenote',
  'application/msonenote',
  // Web archives: Windows registers .mht as message/rfc822 (so an .eml declared so is refused
  // too, the price of refusing .mht), MHTML's own type is multipart/related
  'message/rfc822',
  'multipart/related',
  'application/x-mimearchive',
];

const EXTENSIONS = new Set(RUNNABLE_EXTENSIONS);
const TYPES = new Set(RUNNABLE_MEDIA_TYPES);

/**
 * The refused extension of a name, or undefined. Only the last extension counts
 * (`invoice.pdf.exe` is an .exe); trailing dots and spaces are ignored, since Windows
 * drops them when it saves the file.
 */
export function runnableExtension(filename: string): string | undefined {
  const name = filename.replace(/[. ]+$/, '');
  const dot = name.lastIndexOf('.');
  if (dot < 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  return EXTENSIONS.has(extension) ? extension : undefined;
}

/** True for a media type (normalised: lowercase, no parameters) that is refused. */
export const isRunnableType = (mediaType: string) => TYPES.has(mediaType);
