package crash

import "testing"

// pygame's own SIGSEGV handler (the "parachute") prints a Fatal Python error
// of its own wording: a host segfault like faulthandler's.
func TestPygameParachuteSegfault(t *testing.T) {
	for _, c := range []struct{ src, text string }{
		{"https://github.com/clear-code-projects/Pygame-Cameras/issues/1", "Fatal Python error: pygame_parachute: (pygame parachute) Segmentation Fault\nPython runtime state: initialized\n"},
		{"https://github.com/singularity/singularity/issues/304", "Fatal Python error: pygame_parachute: (pygame parachute) Segmentation Fault\nPython runtime state: initialized\n\nCurrent thread 0x00007f703f2ec640 (most recent call first):\n<no Python frame>\n"},
		{"https://github.com/kivy/kivy/issues/1546 (pygame 1.x)", "Fatal Python error: (pygame parachute) Segmentation Fault\n"},
		{"https://github.com/dotchen/LearningByCheating/issues/20", "> Fatal Python error: (pygame parachute) Segmentation Fault\n"},
	} {
		d := diagnoseWhole("pg.log", []byte(c.text))
		f := hasClass(d, ClassHostSegfault)
		if f == nil || f.Signal != "SIGSEGV" {
			t.Errorf("%s: want host_segfault (SIGSEGV), got %v", c.src, classesOf(d))
		}
	}
}
