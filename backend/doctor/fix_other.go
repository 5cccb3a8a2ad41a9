//go:build !windows

package doctor

func installFix(bin string) string { return "install it: sudo apt-get install " + aptPackage(bin) }

func reinstallFix(bin string) string {
	return "reinstall it: sudo apt-get install --reinstall " + aptPackage(bin)
}
