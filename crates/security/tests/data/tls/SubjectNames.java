import java.io.FileInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * Prints, for each PEM certificate file named on the command line, the file
 * name, a tab and the subject as Java's X500Principal.getName() (RFC 2253)
 * gives it: the expectations of kraft-security's subject_name tests.
 */
public class SubjectNames {
    public static void main(String[] args) throws Exception {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        for (String file : args) {
            try (FileInputStream in = new FileInputStream(file)) {
                X509Certificate cert = (X509Certificate) factory.generateCertificate(in);
                System.out.println(file + "\t" + cert.getSubjectX500Principal().getName());
            }
        }
    }
}
